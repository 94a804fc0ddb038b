// First: marks when this bundle's own code began (harness builds only; src/background/startup-marks.ts).
import '../src/background/script-start';
import { startBackground } from '../src/background';
import { COMPILER_GLOBAL, COMPILER_SCRIPT } from '../src/background/compiler-script';
import { CONTROL_GLOBAL, CONTROL_SCRIPT } from '../src/background/control-script';
import { importOnInstall } from '../src/background/on-demand-script';
import { openHarnessChannel } from '../src/background/harness-channel';
import { startupMark } from '../src/background/startup-marks';
import { MODEL_MODES_GLOBAL, MODEL_MODES_SCRIPT } from '../src/llm/model-modes-script';
import { OPENAI_SDK_GLOBAL, OPENAI_SDK_SCRIPT } from '../src/llm/sdk-script';
import { NAMES_GLOBAL, NAMES_SCRIPT } from '../src/minimizer/names-script';
import { COLLECTOR_GLOBAL, COLLECTOR_SCRIPT } from '../src/org/collector-script';

export default defineBackground(() => {
  // Every module of background.js has been evaluated by now.
  startupMark('evaluated');
  // The scripts loaded on demand; this is their only install listener (src/background/on-demand-script.ts).
  importOnInstall([
    { url: COMPILER_SCRIPT, globalName: COMPILER_GLOBAL },
    { url: CONTROL_SCRIPT, globalName: CONTROL_GLOBAL },
    { url: OPENAI_SDK_SCRIPT, globalName: OPENAI_SDK_GLOBAL },
    { url: MODEL_MODES_SCRIPT, globalName: MODEL_MODES_GLOBAL },
    { url: COLLECTOR_SCRIPT, globalName: COLLECTOR_GLOBAL },
    { url: NAMES_SCRIPT, globalName: NAMES_GLOBAL },
  ]);
  const handle = startBackground();
  // Compile-time constant (wxt.config.ts): true only in the harness builds; the production bundle
  // contains neither this call nor the module it imports.
  if (__AF_HARNESS__) openHarnessChannel(handle);
});
