import { useEffect, useState } from 'preact/hooks';
import type { TargetedEvent } from 'preact';
import { request, type Transport } from './client';
import { OrgLimits } from './OrgLimits';
import { fieldsFromOptions, OPENROUTER_BASE_URL, validateOptions, type OptionsField, type OptionsFields } from './optionsForm';

type Result = { kind: 'ok' | 'error'; text: string } | null;

function FieldError({ field, errors }: { field: OptionsField; errors: Partial<Record<OptionsField, string>> }) {
  const message = errors[field];
  return (
    <p id={`${field}-error`} class="field-error">
      {message ?? ''}
    </p>
  );
}

/** Compiler backend, model, API key, ask timeout, guard scope and Sanitizer; validated before anything is saved or tested. */
export function OptionsPage({ transport }: { transport: Transport }) {
  const [fields, setFields] = useState<OptionsFields | null>(null);
  const [errors, setErrors] = useState<Partial<Record<OptionsField, string>>>({});
  const [saveResult, setSaveResult] = useState<Result>(null);
  const [testResult, setTestResult] = useState<Result>(null);
  const [busy, setBusy] = useState<'save' | 'test' | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  /** Opened outside a window AgentsFence opened itself (Chrome's own Options entry): look, don't touch. */
  const [readOnly, setReadOnly] = useState(false);
  const [opened, setOpened] = useState<string | null>(null);
  const [orgLimits, setOrgLimits] = useState<string[]>([]);

  useEffect(() => {
    void (async () => {
      const r = await request(transport, { type: 'options.get' });
      if (r.ok) return setFields(fieldsFromOptions(r.options));
      const view = r.code === 'approvals-disabled' ? await request(transport, { type: 'options.view' }) : r;
      if (!view.ok) return setLoadError(`Cannot load the options: ${view.error}`);
      setReadOnly(true);
      setFields(fieldsFromOptions(view.options));
    })();
  }, [transport]);

  // What the organisation forces or caps wins over the fields below (the window AgentsFence opened may ask).
  useEffect(() => {
    void request(transport, { type: 'task.get' }).then((r) => setOrgLimits(r.ok ? r.org : []));
  }, [transport]);

  const openSettingsWindow = async () => {
    const r = await request(transport, { type: 'options.open' });
    setOpened(r.ok ? 'Opened the AgentsFence settings window.' : `Could not open it: ${r.error}`);
  };

  if (fields === null) return <p role={loadError === null ? 'status' : 'alert'}>{loadError ?? 'Loading options…'}</p>;

  const set = (field: OptionsField) => (e: TargetedEvent<HTMLInputElement | HTMLSelectElement>) => {
    const value = e.currentTarget.value;
    const next = { ...fields, [field]: value };
    if (field === 'backend' && value === 'openrouter') next.baseUrl = OPENROUTER_BASE_URL;
    setFields(next);
    setSaveResult(null);
    setTestResult(null);
    if (errors[field] !== undefined) {
      const rest = { ...errors };
      delete rest[field];
      setErrors(rest);
    }
  };
  const invalid = (field: OptionsField) => ({
    'aria-invalid': errors[field] !== undefined,
    'aria-describedby': `${field}-error`,
  });

  const validated = () => {
    const v = validateOptions(fields);
    setErrors(v.ok ? {} : v.errors);
    return v.ok ? v.options : null;
  };

  const save = async (e: Event) => {
    e.preventDefault();
    setTestResult(null);
    const options = validated();
    if (options === null) return setSaveResult({ kind: 'error', text: 'Not saved: fix the fields marked above.' });
    setBusy('save');
    const r = await request(transport, { type: 'options.set', options });
    setBusy(null);
    if (r.ok) setFields(fieldsFromOptions(r.options));
    setSaveResult(r.ok ? { kind: 'ok', text: 'Saved.' } : { kind: 'error', text: `Not saved: ${r.error}` });
  };

  const test = async () => {
    setSaveResult(null);
    const options = validated();
    if (options === null) return setTestResult({ kind: 'error', text: 'Not tested: fix the fields marked above.' });
    setBusy('test');
    setTestResult(null);
    const r = await request(transport, { type: 'options.test', options });
    setBusy(null);
    setTestResult(r.ok ? { kind: 'ok', text: `Connection works: ${r.message}` } : { kind: 'error', text: `Connection failed: ${r.error}` });
  };

  const remote = fields.backend !== 'rules';
  return (
    <form class="options stack" onSubmit={save} noValidate>
      <h1>AgentsFence options</h1>
      <OrgLimits limits={orgLimits} />
      {readOnly && (
        <div class="notice" role="note">
          <p>
            Read only. Settings change only in a window AgentsFence opens itself, so a page an agent drives can never change them. Open that
            window here, or with <strong>Options</strong> in the toolbar popup.
          </p>
          <button type="button" onClick={() => void openSettingsWindow()}>
            Open the settings window
          </button>
          <p role="status">{opened ?? ''}</p>
        </div>
      )}
      <fieldset disabled={readOnly}>
        <legend>Policy compiler</legend>
        <label for="backend">Compiler backend</label>
        <select id="backend" value={fields.backend} onChange={set('backend')} {...invalid('backend')}>
          <option value="rules">Offline rules (no network)</option>
          <option value="openrouter">OpenRouter</option>
          <option value="openai-compatible">OpenAI-compatible base URL</option>
        </select>
        <FieldError field="backend" errors={errors} />

        <label for="baseUrl">Base URL</label>
        <input id="baseUrl" type="url" value={fields.baseUrl} onInput={set('baseUrl')} disabled={fields.backend !== 'openai-compatible'} {...invalid('baseUrl')} />
        <FieldError field="baseUrl" errors={errors} />

        <label for="model">Model</label>
        <input id="model" type="text" value={fields.model} onInput={set('model')} disabled={!remote} {...invalid('model')} />
        <FieldError field="model" errors={errors} />

        <label for="apiKey">API key</label>
        <input
          id="apiKey"
          type="password"
          autoComplete="off"
          spellcheck={false}
          value={fields.apiKey}
          onInput={set('apiKey')}
          disabled={!remote}
          {...invalid('apiKey')}
        />
        <p class="muted">Stored in this browser’s extension storage only; never logged or exported.</p>
        <FieldError field="apiKey" errors={errors} />
      </fieldset>

      <fieldset disabled={readOnly}>
        <legend>Enforcement</legend>
        <label for="askTimeoutSeconds">Ask timeout (seconds)</label>
        <input
          id="askTimeoutSeconds"
          type="text"
          inputMode="numeric"
          value={fields.askTimeoutSeconds}
          onInput={set('askTimeoutSeconds')}
          {...invalid('askTimeoutSeconds')}
        />
        <p class="muted">An approval nobody answers in this time is blocked.</p>
        <FieldError field="askTimeoutSeconds" errors={errors} />

        <label for="guardScope">Guard scope</label>
        <select id="guardScope" value={fields.guardScope} onChange={set('guardScope')} {...invalid('guardScope')}>
          <option value="all-tabs">All tabs (an agent-only browser)</option>
          <option value="task-tabs">The task’s tab and the tabs it opens</option>
        </select>
        <FieldError field="guardScope" errors={errors} />
      </fieldset>

      <fieldset disabled={readOnly}>
        <legend>Sanitizer (what the agent reads)</legend>
        <label for="sanitizer">Sanitizer</label>
        <select id="sanitizer" value={fields.sanitizer} onChange={set('sanitizer')} {...invalid('sanitizer')}>
          <option value="hidden">Remove hidden and agent-addressed instructions (default)</option>
          <option value="model">Also let the compiler’s model review suspicious text</option>
          <option value="off">Off</option>
        </select>
        <p class="muted">In guarded tabs during a task. The model mode uses the compiler backend above.</p>
        <FieldError field="sanitizer" errors={errors} />

        <label for="sanitizerModelBudget">Model calls per task</label>
        <input
          id="sanitizerModelBudget"
          type="text"
          inputMode="numeric"
          value={fields.sanitizerModelBudget}
          onInput={set('sanitizerModelBudget')}
          disabled={fields.sanitizer !== 'model'}
          {...invalid('sanitizerModelBudget')}
        />
        <FieldError field="sanitizerModelBudget" errors={errors} />
      </fieldset>

      <fieldset disabled={readOnly}>
        <legend>Minimizer (data an allowed action carries)</legend>
        <label for="minimizer">Minimizer</label>
        <select id="minimizer" value={fields.minimizer} onChange={set('minimizer')} {...invalid('minimizer')}>
          <option value="detect">Detect: ask before sending codes, passwords, card numbers, IBANs, keys the task does not call for</option>
          <option value="model">Model: detect, plus the compiler's endpoint names data the task does not need</option>
          <option value="off">Off</option>
        </select>
        <FieldError field="minimizer" errors={errors} />

        <label for="minimizeWithoutAsking">Send without the flagged data, without asking</label>
        <select id="minimizeWithoutAsking" value={fields.minimizeWithoutAsking} onChange={set('minimizeWithoutAsking')} {...invalid('minimizeWithoutAsking')}>
          <option value="no">No, ask me</option>
          <option value="yes">Yes, when the action can be rebuilt exactly</option>
        </select>
        <FieldError field="minimizeWithoutAsking" errors={errors} />
      </fieldset>

      {!readOnly && (
        <div class="buttons">
          <button type="submit" disabled={busy !== null}>
            Save
          </button>
          <button type="button" onClick={() => void test()} disabled={busy !== null}>
            Test connection
          </button>
        </div>
      )}
      <p class="result" role="status" data-kind={saveResult?.kind}>
        {busy === 'save' ? 'Saving…' : (saveResult?.text ?? '')}
      </p>
      <p class="result" role="status" aria-label="Connection test result" data-kind={testResult?.kind}>
        {busy === 'test' ? 'Testing connection…' : (testResult?.text ?? '')}
      </p>
    </form>
  );
}
