import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import {
  closeSync,
  existsSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { isProcessAlive } from '../common/process-alive';
import { AppConfig } from '../config/app-config';

/** A channel's answer to a send, kept until the database has it. */
export interface AnsweredSend {
  messageId: string;
  channelMessageId: string;
}

const DIRECTORY = 'send-journal';
const FILE_PATTERN = /^(\d+)\.jsonl$/;
/** The file is rewritten with only the unsettled answers once it grows past this. */
const COMPACT_AT_BYTES = 64 * 1024;

/**
 * The channel's answers to sends, written to a local file synchronously, in the same tick the
 * answer arrives, before the database is asked to record it. Between the answer and the commit
 * of `sent` a statement may wait for a pooled connection (on the embedded engine, behind every
 * other statement on its single one); a kill -9 in that wait would leave the message `queued`
 * and send it to the customer again. A restart on the same DATA_DIR reads the journals of
 * processes that no longer run and records their answers before any send is handed on, so only
 * sends that had no answer yet at the kill can repeat.
 *
 * One file per process (named after its pid) so processes sharing a DATA_DIR never read each
 * other's live journal. The page cache survives the death of a process, so a write without fsync
 * is enough for a crash of the service; a crash of the machine is not covered.
 */
@Injectable()
export class SendJournal implements OnModuleDestroy {
  private readonly logger = new Logger(SendJournal.name);
  private readonly directory: string;
  private readonly file: string;
  private readonly unsettled = new Map<string, { answer: AnsweredSend; line: string }>();
  private fd: number | null = null;
  private size = 0;

  constructor(config: AppConfig) {
    this.directory = join(resolve(config.dataDir), DIRECTORY);
    this.file = join(this.directory, `${process.pid}.jsonl`);
  }

  /**
   * The answers left by processes that are gone (or by an earlier life of this pid, as in a
   * container restarted as pid 1), removed from disk once `record` has stored them.
   */
  async recoverAbandoned(record: (answers: AnsweredSend[]) => Promise<void>): Promise<void> {
    if (!existsSync(this.directory)) return;
    for (const name of readdirSync(this.directory)) {
      const pid = Number(FILE_PATTERN.exec(name)?.[1]);
      if (!pid || (pid !== process.pid && isProcessAlive(pid))) continue;
      const path = join(this.directory, name);
      const answers = parse(readFileSync(path, 'utf8'));
      if (answers.length > 0) {
        await record(answers);
        this.logger.warn(`Recorded ${answers.length} send(s) that the channel had answered before process ${pid} stopped`);
      }
      rmSync(path, { force: true });
    }
  }

  /** Keeps the channel's answer before anything else runs; `settle` forgets it once committed. */
  answered(answer: AnsweredSend): void {
    const line = `${JSON.stringify(answer)}\n`;
    this.unsettled.set(answer.messageId, { answer, line });
    if (this.fd === null) {
      mkdirSync(this.directory, { recursive: true });
      this.fd = openSync(this.file, 'a');
    }
    this.size += writeSync(this.fd, line);
  }

  settle(messageId: string): void {
    if (!this.unsettled.delete(messageId) || this.fd === null) return;
    if (this.unsettled.size === 0) {
      ftruncateSync(this.fd, 0);
      this.size = 0;
    } else if (this.size >= COMPACT_AT_BYTES) {
      // Rewritten to the answers still unsettled, atomically, so the file stays small under load.
      const rest = [...this.unsettled.values()].map((entry) => entry.line).join('');
      const next = `${this.file}.next`;
      writeFileSync(next, rest);
      renameSync(next, this.file);
      closeSync(this.fd);
      this.fd = openSync(this.file, 'a');
      this.size = Buffer.byteLength(rest);
    }
  }

  /** The answer kept for this message whose recording has not committed yet (the database was down when it came). */
  answerFor(messageId: string): AnsweredSend | undefined {
    return this.unsettled.get(messageId)?.answer;
  }

  onModuleDestroy(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
    // Unsettled answers stay for the next start; an empty journal is removed.
    if (this.unsettled.size === 0) rmSync(this.file, { force: true });
  }
}

function parse(text: string): AnsweredSend[] {
  const answers: AnsweredSend[] = [];
  for (const line of text.split('\n')) {
    // A line cut short by the kill is the one answer that was being written; its send was in flight.
    try {
      const answer = JSON.parse(line) as Partial<AnsweredSend>;
      if (typeof answer.messageId === 'string' && typeof answer.channelMessageId === 'string') {
        answers.push({ messageId: answer.messageId, channelMessageId: answer.channelMessageId });
      }
    } catch {
      continue;
    }
  }
  return answers;
}
