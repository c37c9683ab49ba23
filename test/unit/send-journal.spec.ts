import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppConfig } from '../../src/config/app-config';
import { AnsweredSend, SendJournal } from '../../src/conversations/send-journal';

describe('SendJournal', () => {
  let dataDir: string;
  const journalAt = (dir: string) => new SendJournal({ dataDir: dir } as AppConfig);
  const recovered = async (journal: SendJournal) => {
    const answers: AnsweredSend[] = [];
    await journal.recoverAbandoned(async (found) => void answers.push(...found));
    return answers;
  };
  /** A pid that ran and has exited, as a killed service's. */
  const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;

  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'send-journal-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('hands over the answers of a process that no longer runs, and removes its journal', async () => {
    const directory = join(dataDir, 'send-journal');
    mkdirSync(directory);
    const file = join(directory, `${deadPid()}.jsonl`);
    writeFileSync(file, '{"messageId":"m1","channelMessageId":"wamid.1"}\n{"messageId":"m2","channelMessageId":"wamid.2"}\n');
    expect(await recovered(journalAt(dataDir))).toEqual([
      { messageId: 'm1', channelMessageId: 'wamid.1' },
      { messageId: 'm2', channelMessageId: 'wamid.2' },
    ]);
    expect(existsSync(file)).toBe(false);
  });

  it('leaves alone the journal of a process that still runs', async () => {
    const directory = join(dataDir, 'send-journal');
    mkdirSync(directory);
    const file = join(directory, `${process.ppid}.jsonl`);
    writeFileSync(file, '{"messageId":"m1","channelMessageId":"wamid.1"}\n');
    expect(await recovered(journalAt(dataDir))).toEqual([]);
    expect(existsSync(file)).toBe(true);
  });

  it('skips a line cut short by the kill and keeps the whole ones', async () => {
    const directory = join(dataDir, 'send-journal');
    mkdirSync(directory);
    writeFileSync(join(directory, `${deadPid()}.jsonl`), '{"messageId":"m1","channelMessageId":"wamid.1"}\n{"messageId":"m2","chan');
    expect(await recovered(journalAt(dataDir))).toEqual([{ messageId: 'm1', channelMessageId: 'wamid.1' }]);
  });

  it('keeps an answer on disk from the moment it arrives until it is settled', async () => {
    const journal = journalAt(dataDir);
    journal.answered({ messageId: 'm1', channelMessageId: 'wamid.1' });
    const file = join(dataDir, 'send-journal', `${process.pid}.jsonl`);
    expect(readFileSync(file, 'utf8')).toContain('"wamid.1"');
    expect(journal.answerFor('m1')).toEqual({ messageId: 'm1', channelMessageId: 'wamid.1' });
    journal.settle('m1');
    expect(journal.answerFor('m1')).toBeUndefined();
    journal.onModuleDestroy();
    expect(existsSync(file)).toBe(false);
  });

  it('compacts to the unsettled answers once the file grows, and empties it when none is left', () => {
    const journal = journalAt(dataDir);
    const file = join(dataDir, 'send-journal', `${process.pid}.jsonl`);
    for (let n = 0; n < 2_000; n++) journal.answered({ messageId: `m${n}`, channelMessageId: `wamid.${n}` });
    expect(statSync(file).size).toBeGreaterThan(64 * 1024);
    for (let n = 1; n < 2_000; n++) journal.settle(`m${n}`);
    expect(statSync(file).size).toBeLessThan(64 * 1024);
    expect(readFileSync(file, 'utf8')).toContain('{"messageId":"m0","channelMessageId":"wamid.0"}\n');
    journal.settle('m0');
    expect(statSync(file).size).toBe(0);
    journal.answered({ messageId: 'm2000', channelMessageId: 'wamid.2000' });
    expect(readFileSync(file, 'utf8')).toBe('{"messageId":"m2000","channelMessageId":"wamid.2000"}\n');
    journal.onModuleDestroy();
    expect(existsSync(file)).toBe(true);
  });
});
