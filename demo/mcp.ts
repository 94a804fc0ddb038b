import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { AgentDriver } from './agents';
import { chromiumArgs } from '../src/harness';
import { CHROMIUM, type AgentHandle } from './runner';
import { hostResolverRule, type DemoWorld } from './sites/world';

/**
 * A real agent runtime: Playwright MCP (`@playwright/mcp`) started as a child process, driven over
 * stdio by an MCP client. The extension loads only through `--config` with `isolated: false` and a
 * user data dir (docs/machine-facts.md). The agent uses the runtime's own tools: browser_navigate,
 * browser_click, browser_type, browser_snapshot, browser_evaluate.
 */

interface ToolResult {
  isError?: boolean;
  content?: { type: string; text?: string }[];
}

function textOf(result: ToolResult): string {
  return (result.content ?? []).map((c) => c.text ?? '').join('\n');
}

/** The value under `### Result` in a browser_evaluate answer. */
export function evaluateResult(text: string): unknown {
  const match = /### Result\n([\s\S]*?)(?:\n### |$)/.exec(text);
  if (!match?.[1]) return undefined;
  try {
    return JSON.parse(match[1].trim());
  } catch {
    return match[1].trim();
  }
}

export class McpDriver implements AgentDriver {
  constructor(private readonly client: Client) {}

  private async call(name: string, args: Record<string, unknown>): Promise<string> {
    const result = (await this.client.callTool({ name, arguments: args })) as ToolResult;
    const text = textOf(result);
    // Tool failures come back as isError results, not exceptions: the agent sees them as errors.
    if (result.isError) throw new Error(text.replace(/^### Error\n/, '').split('\n')[0] ?? 'tool error');
    return text;
  }

  async goto(url: string): Promise<void> {
    await this.call('browser_navigate', { url });
  }

  async click(selector: string): Promise<void> {
    await this.call('browser_click', { target: selector, element: selector });
  }

  async fill(selector: string, value: string): Promise<void> {
    await this.call('browser_type', { target: selector, element: selector, text: value });
  }

  async read(selector: string): Promise<string> {
    return this.call('browser_snapshot', { target: selector });
  }

  async evaluate(script: string): Promise<unknown> {
    return evaluateResult(await this.call('browser_evaluate', { function: script }));
  }

  async currentUrl(): Promise<string> {
    return String(await this.evaluate('() => location.href'));
  }

  async pageText(): Promise<string> {
    return String(await this.evaluate("() => document.body ? document.body.textContent : ''"));
  }

  async waitForText(text: string): Promise<void> {
    await this.call('browser_wait_for', { text });
  }

  async reset(): Promise<void> {
    // The MCP server owns its tabs; the next navigation replaces the page.
  }
}

export interface McpRuntime {
  client: Client;
  /** Port of the MCP browser's DevTools endpoint (for the runner to set the task over CDP). */
  cdpPort: number;
  newAgent(): Promise<AgentHandle>;
  close(): Promise<void>;
}

/** Start Playwright MCP with its own Chromium; `extensionPath` loads the extension into it. */
export async function startMcpRuntime(world: DemoWorld, opts: { extensionPath: string | null; headless: boolean; cdpPort: number }): Promise<McpRuntime> {
  const workDir = await mkdtemp(join(tmpdir(), 'agentsfence-mcp-'));
  const config = {
    browser: {
      browserName: 'chromium',
      isolated: false,
      userDataDir: join(workDir, 'profile'),
      launchOptions: {
        executablePath: CHROMIUM,
        headless: opts.headless,
        chromiumSandbox: false,
        // The harness's flags (minus --no-sandbox: chromiumSandbox says it), the port of the demo server
        // for *.test, and a DevTools port for the runner to reach the extension's worker.
        args: [...chromiumArgs(opts.extensionPath, false).filter((a) => a !== '--no-sandbox'), hostResolverRule(world.port), `--remote-debugging-port=${opts.cdpPort}`],
      },
    },
  };
  await writeFile(join(workDir, 'config.json'), JSON.stringify(config));
  // The package exports only its entry; cli.js sits next to package.json.
  const cli = join(dirname(createRequire(import.meta.url).resolve('@playwright/mcp/package.json')), 'cli.js');
  const transport = new StdioClientTransport({
    command: process.execPath,
    // MCP's own settle (500 ms after an action before the next one reads the page), as users run it: with 0, a
    // form's navigation that starts after the click returns (the guard decides it first) lands mid-read of the
    // next step (news-research failed so, 2 runs of 2, at c6818d9).
    args: [cli, '--config', join(workDir, 'config.json'), '--timeout-action', '5000'],
    // Snapshots and console logs are written under the working directory: keep them out of the repo.
    cwd: workDir,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'agentsfence-demo', version: '1.0.0' });
  await client.connect(transport);
  const driver = new McpDriver(client);
  return {
    client,
    cdpPort: opts.cdpPort,
    newAgent: async () => Object.assign(driver, { close: async () => undefined }),
    close: async () => {
      await client.close().catch(() => undefined);
      await rm(workDir, { recursive: true, force: true });
    },
  };
}
