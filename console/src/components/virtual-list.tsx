import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * Renders only the rows in view (plus a few), each `rowHeight` pixels: ten thousand conversations
 * are a few dozen elements, so scrolling stays smooth. Asks for more when the end comes near.
 */
export function VirtualList<T>(props: {
  items: T[];
  rowHeight: number;
  keyOf: (item: T) => string;
  renderRow: (item: T, index: number) => ComponentChildren;
  onNearEnd?: () => void;
  label: string;
  /** The index to keep in view (the selected row, moved by the keyboard). */
  activeIndex?: number;
}) {
  const { items, rowHeight } = props;
  const viewport = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);

  useEffect(() => {
    const element = viewport.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setHeight(element.clientHeight));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  useEffect(() => {
    const element = viewport.current;
    if (!element || props.activeIndex === undefined || props.activeIndex < 0) return;
    const top = props.activeIndex * rowHeight;
    if (top < element.scrollTop) element.scrollTop = top;
    else if (top + rowHeight > element.scrollTop + element.clientHeight) element.scrollTop = top + rowHeight - element.clientHeight;
  }, [props.activeIndex, rowHeight]);

  const overscan = 6;
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(items.length, Math.ceil((scrollTop + height) / rowHeight) + overscan);

  useEffect(() => {
    if (props.onNearEnd && last >= items.length - overscan) props.onNearEnd();
  }, [last, items.length]);

  return (
    <div ref={viewport} class="virtual-viewport" onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}>
      <ul class="virtual-canvas" aria-label={props.label} style={{ height: `${items.length * rowHeight}px` }}>
        {items.slice(first, last).map((item, offset) => (
          <li
            key={props.keyOf(item)}
            class="virtual-row"
            style={{ transform: `translateY(${(first + offset) * rowHeight}px)`, height: `${rowHeight}px` }}
          >
            {props.renderRow(item, first + offset)}
          </li>
        ))}
      </ul>
    </div>
  );
}
