import { installBridge, installFormGuard, waitingNotice, type SendProposal } from '../src/content/isolated';
import { ISOLATED_INSTALLED_KEY } from '../src/content/bridge';
import { installTaintCollector } from '../src/content/taint';
import { openWorkerPort, type PortRuntime } from '../src/content/worker-port';
import { installSanitizer } from '../src/sanitizer/install';
import type { Request } from '../src/messages/protocol';

/**
 * The one ISOLATED-world script, every frame, before any page script: holds form submissions, relays
 * the MAIN-world hooks' proposals to the background, records the data-lane taint for the network floor
 * and runs the Sanitizer. Registered only while a task runs (src/background/floor/registration.ts), or
 * injected into tabs already open when it starts; everything goes over the frame's one port.
 * An unlisted script, not a WXT content script: the background registers it itself, and WXT's
 * content-script context (which loads the webextension polyfill) stays out of every frame.
 */
export default defineUnlistedScript({
  globalName: false,
  main() {
    const flags = globalThis as Record<string, unknown>;
    // Injected into an open tab while the registered script already ran (a load racing the task start): once.
    if (flags[ISOLATED_INSTALLED_KEY] === true) return;
    flags[ISOLATED_INSTALLED_KEY] = true;
    const chromeApi = (globalThis as unknown as { chrome: ChromeApi }).chrome;
    const request = openWorkerPort(chromeApi.runtime);
    const taint = installTaintCollector(window, (report) => request<'taint.report'>(report));
    // The MAIN world's calls are relayed as read: the background's schema parses them (any tool but the browser's is BLOCK).
    // What the page has shown goes first, on the same port, so the background decides the call knowing it
    // (a load a script starts right after the page showed a code is judged with that code in the taint).
    const propose: SendProposal = (message) => {
      taint.flush();
      return request<'proposal'>(message as Request<'proposal'>);
    };
    installBridge(window, propose);
    const forms = installFormGuard(window, propose);
    // A held action says it is waiting for the user, on the console and in the page (agents read either).
    if (window === window.top) {
      chromeApi.runtime.onMessage.addListener((message: unknown) => {
        const line = waitingNotice(message);
        if (line === null) return;
        console.info(line);
        forms.waiting(line);
      });
    }
    installSanitizer(document, request, chromeApi);
  },
});

/** The parts of `chrome` this script uses: its port, the waiting notice, the Sanitizer's closed-shadow-root reader. */
type ChromeApi = { runtime: PortRuntime & { onMessage: { addListener(fn: (message: unknown) => void): void } } } & NonNullable<Parameters<typeof installSanitizer>[2]>;
