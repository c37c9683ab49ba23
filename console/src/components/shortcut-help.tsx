import { useEffect, useState } from 'preact/hooks';
import { Dialog } from '../ui';

const SHORTCUTS: [string, string][] = [
  ['j / k (or Alt+↓ / Alt+↑)', 'Next / previous conversation'],
  ['r', 'Reply (focus the composer)'],
  ['a', 'Assign the conversation to me'],
  ['e', 'Close the conversation'],
  ['/', 'Search'],
  ['Enter / Shift+Enter', 'Send / new line in the composer'],
  ['Esc', 'Leave the composer or close a dialog'],
  ['?', 'This list'],
];

/** `?` lists the keyboard shortcuts. */
export function ShortcutHelp() {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.target as HTMLElement).closest('input, textarea, select')) return;
      if (event.key === '?') setOpen(true);
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
  if (!open) return null;
  return (
    <Dialog title="Keyboard shortcuts" onClose={() => setOpen(false)}>
      <dl class="shortcuts">
        {SHORTCUTS.map(([keys, what]) => (
          <>
            <dt>
              <kbd>{keys}</kbd>
            </dt>
            <dd>{what}</dd>
          </>
        ))}
      </dl>
    </Dialog>
  );
}
