import { createInterface } from 'node:readline';
import type { ReadStream } from 'node:tty';
import { revealed } from '../background/decide/redact';
import { approvalIsOnceOnly } from '../core/grants';
import type { ApprovalAnswerKind, PendingApproval } from '../messages/protocol';
import { describeApproval } from '../ui/approvalView';
import { listWords, secondsLeft } from '../ui/words';

/**
 * Approvals in the terminal (`agentsfence browser`, headless), built so that nothing typed can answer an
 * approval the person has not seen:
 * - every pending approval is listed with a number of its own (never reused), what it does, its target,
 *   why it is held and its countdown;
 * - a line typed while nothing is listed is discarded (and says so); on a terminal, what is half-typed
 *   when the list changes is cleared (but not when the change is the person's own answer: "3 n", then "2 y"
 *   typed straight after, answers both);
 * - a bare answer (`y`) applies only when exactly one approval is listed and the list has not changed in
 *   the last second (a second `y` typed right after the first cannot answer the next one); with more than
 *   one, an answer names its number (`2 y`), and only a number already on screen when the line arrived;
 * - an approval that ends elsewhere (popup, timeout, task end) is withdrawn with a line saying so.
 * The desk is the pure part (what to print, what an input line means); `approveInTerminal` wires it to
 * stdin, stderr and the extension.
 */

export interface DeskAnswer {
  id: string;
  answer: ApprovalAnswerKind;
  number: number;
}

/** How long a changed list must have been on screen before a bare answer counts. */
export const MIN_READ_MS = 1000;

interface Shown {
  number: number;
  approval: PendingApproval;
  /** When this approval was first printed. */
  shownAt: number;
}

const ANSWER_WORDS: Record<ApprovalAnswerKind, string> = {
  once: 'allowed once',
  task: 'allowed for this task',
  deny: 'denied',
  'send-without': 'sent without the flagged data',
  'send-as-is': 'sent as is',
};

/** The answers an approval takes: letter → answer. */
function choicesOf(p: PendingApproval): { key: string; answer: ApprovalAnswerKind; words: string }[] {
  if (p.minimizable !== undefined) {
    return [
      ...(p.minimizable ? [{ key: 'w', answer: 'send-without' as const, words: 'send without it' }] : []),
      { key: 's', answer: 'send-as-is', words: 'send as is' },
      { key: 'n', answer: 'deny', words: 'deny' },
    ];
  }
  return [
    { key: 'y', answer: 'once', words: 'allow once' },
    ...(approvalIsOnceOnly(p) ? [] : [{ key: 'a', answer: 'task' as const, words: 'allow for this task' }]),
    { key: 'n', answer: 'deny', words: 'deny' },
  ];
}

const LONG_KEYS: Record<string, string> = { yes: 'y', no: 'n', always: 'a', deny: 'n' };

function clock(ms: number): string {
  return new Date(ms).toTimeString().slice(0, 8);
}

export class ApprovalDesk {
  private readonly shown = new Map<string, Shown>();
  private next = 1;
  /** When the list last changed on screen (an approval added or removed). */
  private changedAt = 0;
  /** Ids answered here: their disappearance is no withdrawal. */
  private readonly answeredHere = new Set<string>();

  /** What to print for the approvals pending now: new ones in full, withdrawn ones in a line each. */
  update(pending: readonly PendingApproval[], now: number): string[] {
    const out: string[] = [];
    const ids = new Set(pending.map((p) => p.id));
    for (const [id, s] of [...this.shown]) {
      if (ids.has(id)) continue;
      this.shown.delete(id);
      if (this.answeredHere.delete(id)) continue;
      const why = now >= s.approval.expiresAt - 500 ? 'nobody answered in time, so it was blocked' : 'it was answered elsewhere (the popup) or the task ended';
      out.push(`#${s.number} withdrawn: ${why}.`);
    }
    for (const p of pending) {
      if (this.shown.has(p.id)) continue;
      const s = { number: this.next++, approval: p, shownAt: now };
      this.shown.set(p.id, s);
      out.push(...this.describe(s, now));
    }
    if (out.length > 0) {
      this.changedAt = now;
      if (this.shown.size > 1) out.push(`${this.shown.size} approvals are waiting: ${[...this.shown.values()].map((s) => `#${s.number}`).join(', ')}.`);
    }
    return out;
  }

  private describe(s: Shown, now: number): string[] {
    const p = s.approval;
    const view = describeApproval(p, now);
    const target = [
      p.targets.recipients.length > 0 ? `recipient ${listWords(p.targets.recipients)}` : null,
      p.targets.domains.length > 0 ? `site ${listWords(p.targets.domains)}` : null,
      p.targets.paths.length > 0 ? `file ${listWords(p.targets.paths)}` : null,
      p.targets.items.length > 0 ? `item ${listWords(p.targets.items)}` : null,
    ].filter((x): x is string => x !== null);
    const data = view.dataView.split('\n').slice(0, 4);
    return [
      '',
      `AgentsFence #${s.number}: ${view.headline}`,
      `  action:   ${revealed(`${p.capability} (${p.tool})`)}${p.destination === '' ? '' : ` → ${revealed(p.destination)}`}`,
      `  target:   ${revealed(target.length > 0 ? target.join('; ') : 'none named')}`,
      `  held:     ${revealed(p.reason)} (${p.check})`,
      ...data.map((line, i) => `  ${i === 0 ? 'data:' : '     '}     ${line}`),
      `  answer:   ${choicesOf(p).map((c) => `${c.key} = ${c.words}`).join(', ')}; blocked at ${clock(p.expiresAt)} (in ${secondsLeft(p.expiresAt, now)} s) if nobody answers`,
    ];
  }

  /** The prompt line: what an answer now applies to, and the time left. */
  prompt(now: number): string {
    const list = [...this.shown.values()];
    if (list.length === 0) return '';
    if (list.length === 1) {
      const s = list[0]!;
      return `#${s.number} (${secondsLeft(s.approval.expiresAt, now)} s left) ${choicesOf(s.approval).map((c) => c.key).join('/')}? `;
    }
    return `${list.map((s) => `#${s.number} ${secondsLeft(s.approval.expiresAt, now)} s`).join(', ')}: answer "<number> <letter>"? `;
  }

  /** What a line typed at `now` means: an answer to send, or a line saying why it answers nothing. */
  input(raw: string, now: number): { answer: DeskAnswer } | { message: string } | null {
    const line = raw.trim().toLowerCase();
    if (line === '') return null;
    if (this.shown.size === 0) return { message: `(no approval is waiting: "${revealed(raw.trim()).slice(0, 40)}" ignored)` };
    const m = /^#?(\d+)?\s*([a-z-]+)$/.exec(line);
    const letter = m === null ? undefined : (LONG_KEYS[m[2]!] ?? m[2]!);
    let target: Shown | undefined;
    if (m?.[1] !== undefined) {
      const number = Number(m[1]);
      target = [...this.shown.values()].find((s) => s.number === number && s.shownAt < now);
      if (target === undefined) return { message: `#${number} is not waiting (answered, withdrawn or never shown).` };
    } else {
      if (this.shown.size > 1) return { message: `${this.shown.size} approvals are waiting: answer with the number, e.g. "${[...this.shown.values()][0]!.number} n".` };
      if (now - this.changedAt < MIN_READ_MS) return { message: '(ignored: typed before the approval above could be read; answer again)' };
      target = [...this.shown.values()][0]!;
    }
    const choice = choicesOf(target.approval).find((c) => c.key === letter);
    if (choice === undefined) return { message: `#${target.number}: answer ${choicesOf(target.approval).map((c) => `${c.key} (${c.words})`).join(', ')}.` };
    return { answer: { id: target.approval.id, answer: choice.answer, number: target.number } };
  }

  /** The answer was sent: the approval leaves the list (its disappearance is not a withdrawal). */
  answered(a: DeskAnswer, now: number, error?: string): string {
    if (error !== undefined) return `#${a.number}: not applied: ${error}`;
    this.shown.delete(a.id);
    this.answeredHere.add(a.id);
    this.changedAt = now;
    return `#${a.number} → ${ANSWER_WORDS[a.answer]}`;
  }

  get waiting(): number {
    return this.shown.size;
  }
}

export interface ApprovalSource {
  pendingApprovals(): Promise<PendingApproval[]>;
  answer(id: string, answer: ApprovalAnswerKind): Promise<void>;
}

/**
 * Runs the desk on this terminal: polls the extension's pending approvals, prints, reads answers.
 * stdin is the user's terminal, never the agent's. Returns a function that stops it.
 */
export function approveInTerminal(source: ApprovalSource, options: { input?: NodeJS.ReadableStream; output?: NodeJS.WritableStream; pollMs?: number; onInterrupt?: () => void } = {}): () => void {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stderr;
  const tty = (input as ReadStream).isTTY === true;
  const desk = new ApprovalDesk();
  // On a terminal readline owns the line (raw mode): what is half-typed can be cleared when the list changes.
  const rl = createInterface({ input, output: tty ? output : undefined, terminal: tty });
  let stopped = false;
  /** `kept`: the person's own answer left the list; what they are typing next was typed against what they saw. */
  const say = (lines: string[], kept = false) => {
    if (lines.length === 0) return;
    if (tty) {
      // Clear the half-typed line: it was typed against a list that has changed under it.
      if (!kept) {
        rl.write(null, { ctrl: true, name: 'e' });
        rl.write(null, { ctrl: true, name: 'u' });
      }
      output.write('\r\x1b[K');
    }
    output.write(`${lines.join('\n')}\n`);
    refreshPrompt(true);
  };
  const refreshPrompt = (changed: boolean) => {
    const prompt = desk.prompt(Date.now());
    if (tty) {
      rl.setPrompt(prompt);
      if (prompt !== '') rl.prompt(true);
      else if (changed) output.write('\r\x1b[K');
    } else if (changed && prompt !== '') output.write(`${prompt}\n`);
  };
  rl.on('line', (line) => {
    const now = Date.now();
    const result = desk.input(line, now);
    if (result === null) return refreshPrompt(false);
    if ('message' in result) return say([result.message]);
    void source.answer(result.answer.id, result.answer.answer).then(
      () => say([desk.answered(result.answer, Date.now())], true),
      (err: unknown) => say([desk.answered(result.answer, Date.now(), err instanceof Error ? err.message : String(err))]),
    );
  });
  rl.on('SIGINT', () => options.onInterrupt?.());
  const poll = async () => {
    while (!stopped) {
      const pending = await source.pendingApprovals().catch(() => null);
      if (stopped) return;
      if (pending !== null) say(desk.update(pending, Date.now()));
      await new Promise((r) => setTimeout(r, options.pollMs ?? 250));
    }
  };
  void poll();
  // The countdown on the prompt line (a terminal only: elsewhere each listing says when it is blocked).
  const ticker = tty ? setInterval(() => desk.waiting > 0 && refreshPrompt(false), 1000) : null;
  return () => {
    stopped = true;
    if (ticker !== null) clearInterval(ticker);
    rl.close();
  };
}
