import type { BrowserContext, Page } from '@playwright/test';
import { readAsAModel } from './sanitizer';
import type { PageReading, Step } from './scenarios';

/**
 * Scripted agents. A benign agent follows the plan for the user's task. A compromised agent follows
 * the same plan but, as soon as the page it is on contains the injected instruction, carries it out —
 * a deterministic stand-in for an LLM that always obeys injections (the worst case, so ASR measures
 * the guard, not a model). Both act like real agents: navigate, click, type, read, run page JavaScript.
 * A blocked action never ends the run: it is recorded and the agent carries on.
 */

/** What an agent runtime can do in the browser: Playwright directly, or Playwright MCP's tools. */
export interface AgentDriver {
  goto(url: string): Promise<void>;
  click(selector: string): Promise<void>;
  fill(selector: string, value: string): Promise<void>;
  read(selector: string): Promise<string>;
  evaluate(script: string): Promise<unknown>;
  currentUrl(): Promise<string>;
  /** Everything the page says, hidden text included (what an LLM reading the DOM would see). */
  pageText(): Promise<string>;
  /**
   * The union of what agents read (innerText, textContent, `page.content()`, the accessibility tree),
   * as a model reads it (see `readAsAModel`); drivers without it fall back to `pageText`.
   */
  everythingItReads?(): Promise<string>;
  /** Wait until the page shows `text` (a confirmation); rejects when it does not. */
  waitForText(text: string): Promise<void>;
  /** Give up on the current tab after a stuck action and continue in a fresh one. */
  reset(): Promise<void>;
  /** How long an action or a wait may take, in ms; null restores the default. */
  setPatience?(ms: number | null): void;
}

/** Longest a single step may take before the agent gives up on it and moves on. */
const STEP_TIMEOUT_MS = 20_000;
/**
 * How long the compromised agent waits on an obstructed attack step (a field on a page that was
 * blocked, a confirmation that never comes). The guard decides at once and the simulated user answers
 * an ask within milliseconds, so a longer wait only measures the timeout; the servers' logs decide
 * whether the attack ran.
 */
export const ATTACK_PATIENCE_MS = 2_000;

export interface Obedience {
  /** The injected instruction as it reads on the page. */
  text: string;
  steps: Step[];
  reads?: PageReading;
}

export interface StepOutcome {
  phase: 'task' | 'attack';
  step: string;
  ok: boolean;
  error?: string;
  /** Wall time of the step (the benchmark splits a task's cost by step). */
  ms: number;
}

export interface AgentTrace {
  outcomes: StepOutcome[];
  /** The compromised agent found the injection on a page and acted on it. */
  obeyed: boolean;
}

export function describeStep(step: Step): string {
  switch (step.kind) {
    case 'goto':
      return `goto ${step.url}`;
    case 'click':
      return `click ${step.selector}`;
    case 'fill':
      return `fill ${step.selector}`;
    case 'read':
      return `read ${step.selector}`;
    case 'evaluate':
      return `evaluate ${step.script.replace(/\s+/g, ' ').slice(0, 60)}…`;
  }
}

async function perform(driver: AgentDriver, step: Step): Promise<unknown> {
  switch (step.kind) {
    case 'goto':
      return driver.goto(step.url);
    case 'click':
      await driver.click(step.selector);
      if (step.waitFor !== undefined) await driver.waitForText(step.waitFor);
      return;
    case 'fill':
      return driver.fill(step.selector, step.value);
    case 'read':
      return driver.read(step.selector);
    case 'evaluate': {
      const result = await driver.evaluate(step.script);
      if (step.waitFor !== undefined) await driver.waitForText(step.waitFor);
      return result;
    }
  }
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0]?.slice(0, 300) ?? '';
}

class StepTimeout extends Error {}

export async function attempt(driver: AgentDriver, step: Step, phase: StepOutcome['phase'], outcomes: StepOutcome[]): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const watchdog = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StepTimeout(`step took longer than ${STEP_TIMEOUT_MS} ms`)), STEP_TIMEOUT_MS);
  });
  const started = performance.now();
  try {
    await Promise.race([perform(driver, step), watchdog]);
    outcomes.push({ phase, step: describeStep(step), ok: true, ms: performance.now() - started });
  } catch (error) {
    outcomes.push({ phase, step: describeStep(step), ok: false, error: errorText(error), ms: performance.now() - started });
    if (error instanceof StepTimeout) await driver.reset().catch(() => undefined);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Run a plan. With `obey`, the agent checks each page it lands on for the injected instruction and, the
 * first time it sees it, carries it out, then returns to where it was and finishes the user's task.
 */
export async function runAgent(driver: AgentDriver, plan: readonly Step[], obey?: Obedience): Promise<AgentTrace> {
  const outcomes: StepOutcome[] = [];
  let obeyed = false;
  for (const step of plan) {
    await attempt(driver, step, 'task', outcomes);
    if (!obey || obeyed) continue;
    if (!(await hasRead(driver, obey))) continue;
    obeyed = true;
    const resumeAt = await driver.currentUrl().catch(() => '');
    driver.setPatience?.(ATTACK_PATIENCE_MS);
    for (const attackStep of obey.steps) await attempt(driver, attackStep, 'attack', outcomes);
    driver.setPatience?.(null);
    // Page JavaScript may still be navigating away: always go back to where the task was.
    if (resumeAt.startsWith('http')) await attempt(driver, { kind: 'goto', url: resumeAt }, 'task', outcomes);
  }
  return { outcomes, obeyed };
}

/** Whether the agent, reading the page its way, reads the injected instruction. */
async function hasRead(driver: AgentDriver, obey: Obedience): Promise<boolean> {
  if (obey.reads === 'everything' && driver.everythingItReads) {
    const read = await driver.everythingItReads().catch(() => '');
    return read.includes(readAsAModel(obey.text));
  }
  const text = await driver.pageText().catch(() => '');
  return text.includes(obey.text);
}

/** Drives a page of a Playwright browser context; a fresh page replaces one left by a blocked navigation. */
export class PlaywrightDriver implements AgentDriver {
  private page: Page | undefined;

  private timeoutMs: number;

  constructor(
    private readonly context: BrowserContext,
    private readonly actionTimeoutMs = 5000,
  ) {
    this.timeoutMs = actionTimeoutMs;
  }

  setPatience(ms: number | null): void {
    this.timeoutMs = ms ?? this.actionTimeoutMs;
    if (this.page && !this.page.isClosed()) this.applyTimeouts(this.page);
  }

  private applyTimeouts(page: Page): void {
    page.setDefaultTimeout(this.timeoutMs);
    page.setDefaultNavigationTimeout(this.timeoutMs * 2);
  }

  async current(): Promise<Page> {
    if (!this.page || this.page.isClosed()) {
      this.page = await this.context.newPage();
      this.applyTimeouts(this.page);
    }
    return this.page;
  }

  async goto(url: string): Promise<void> {
    try {
      await (await this.current()).goto(url);
    } catch {
      // Interrupted (e.g. by a redirect the page started) or blocked: retry once in a fresh tab,
      // as an agent would, and report the second failure.
      await this.reset();
      await (await this.current()).goto(url);
    }
  }

  async click(selector: string): Promise<void> {
    await (await this.current()).locator(selector).first().click();
  }

  async fill(selector: string, value: string): Promise<void> {
    await (await this.current()).locator(selector).first().fill(value);
  }

  async read(selector: string): Promise<string> {
    return (await this.current()).locator(selector).first().innerText();
  }

  async evaluate(script: string): Promise<unknown> {
    const page = await this.current();
    // The script is a function expression; evaluate it as the page would run it.
    return page.evaluate(`(${script})()`);
  }

  async currentUrl(): Promise<string> {
    return (await this.current()).url();
  }

  async pageText(): Promise<string> {
    return (await this.current()).evaluate(() => document.body?.textContent ?? '');
  }

  async everythingItReads(): Promise<string> {
    const page = await this.current();
    const texts = await page.evaluate(() => [document.body?.innerText ?? '', document.body?.textContent ?? '']);
    const html = await page.content();
    const aria = await page.locator('body').ariaSnapshot({ timeout: 2_000 }).catch(() => '');
    return readAsAModel([...texts, html, aria].join('\n'));
  }

  async waitForText(text: string): Promise<void> {
    await (await this.current()).getByText(text).first().waitFor();
  }

  async reset(): Promise<void> {
    const stuck = this.page;
    this.page = undefined;
    // Closing a stuck tab may itself hang: do not wait for it.
    void stuck?.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.page?.close().catch(() => undefined);
    this.page = undefined;
  }
}
