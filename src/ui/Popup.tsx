import { useState } from 'preact/hooks';
import type { AuditEntry, ErrorResponse, Options, TaskStateResponse } from '../messages/protocol';
import { Approvals, type Answer } from './Approvals';
import { AuditLog } from './AuditLog';
import { NO_FILTER, type AuditFilter } from './auditView';
import { request, type Transport } from './client';
import { PolicyPanel } from './PolicyPanel';
import { OrgLimits } from './OrgLimits';
import { SanitizerSummary } from './SanitizerSummary';
import { usePoll } from './usePoll';

const BACKEND_WORDS: Record<Options['backend'], string> = {
  rules: 'the offline rules compiler',
  openrouter: 'OpenRouter',
  'openai-compatible': 'an OpenAI-compatible endpoint',
};

type Busy = 'start' | 'followup' | 'end' | null;
type Tab = 'task' | 'audit';

const STATE_POLL_MS = 500;
const AUDIT_POLL_MS = 1_000;

interface Props {
  transport: Transport;
  clock?: () => number;
}

/** The toolbar popup: start a task, see its policy, answer approvals, read the audit log. */
export function Popup({ transport, clock = Date.now }: Props) {
  const [state, setState] = useState<TaskStateResponse | null>(null);
  const [refused, setRefused] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<Busy>(null);
  const [backend, setBackend] = useState<string>('the compiler');
  const [answering, setAnswering] = useState<string | null>(null);
  const [tab, setTab] = useState<Tab>('task');
  const [entries, setEntries] = useState<AuditEntry[]>([]);
  const [filter, setFilter] = useState<AuditFilter>(NO_FILTER);
  const [now, setNow] = useState(clock());
  const [taskText, setTaskText] = useState('');
  const [followText, setFollowText] = useState('');

  const fail = (r: ErrorResponse) => {
    if (r.code === 'approvals-disabled') setRefused(true);
    setError(r.error);
  };

  usePoll(async () => {
    const r = await request(transport, { type: 'task.get' });
    setNow(clock());
    if (r.ok) {
      setState(r);
      if (!r.approvalsAllowed) setRefused(true);
    } else fail(r);
  }, STATE_POLL_MS, !refused);

  usePoll(
    async () => {
      const r = await request(transport, { type: 'audit.list' });
      if (r.ok) setEntries(r.entries);
      else fail(r);
    },
    AUDIT_POLL_MS,
    tab === 'audit' && !refused,
  );

  const run = async (kind: Exclude<Busy, null>, send: () => ReturnType<typeof request<'task.get'>>) => {
    setBusy(kind);
    setError(null);
    if (kind !== 'end') {
      const o = await request(transport, { type: 'options.get' });
      if (o.ok) setBackend(BACKEND_WORDS[o.options.backend]);
    }
    const r = await send();
    setBusy(null);
    if (r.ok) {
      setState(r);
      if (kind === 'start') setTaskText('');
      if (kind === 'followup') setFollowText('');
    } else fail(r);
  };

  const start = (e: Event) => {
    e.preventDefault();
    const text = taskText.trim();
    if (text === '') return setError('Describe the task first.');
    void run('start', () => request(transport, { type: 'task.start', request: text }));
  };
  const followUp = (e: Event) => {
    e.preventDefault();
    const text = followText.trim();
    if (text === '') return setError('Write the instruction to add first.');
    void run('followup', () => request(transport, { type: 'task.followup', text }));
  };
  const end = () => void run('end', () => request(transport, { type: 'task.end' }));

  const answer = async (id: string, a: Answer) => {
    setAnswering(id);
    setError(null);
    const r = await request(transport, { type: 'approval.answer', id, answer: a });
    if (!r.ok) fail(r);
    const fresh = await request(transport, { type: 'task.get' });
    if (fresh.ok) setState(fresh);
    setAnswering(null);
  };

  const openFullLog = async () => {
    const r = await request(transport, { type: 'audit.open' });
    if (!r.ok) fail(r);
  };

  const task = state?.task ?? null;
  const approvalsAllowed = !refused && (state?.approvalsAllowed ?? true);

  return (
    <div class="popup">
      <header class="bar">
        <h1>AgentsFence</h1>
        <span class="muted" role="status">
          {refused ? 'Read-only here' : state === null ? 'Connecting…' : task === null ? 'No task' : 'Task active'}
        </span>
        {!refused && (
          <button type="button" class="link" onClick={() => void request(transport, { type: 'options.open' })}>
            Options
          </button>
        )}
      </header>
      <Approvals pending={state?.pending ?? []} policy={task?.policy ?? null} allowed={approvalsAllowed} now={now} answering={answering} onAnswer={(id, a) => void answer(id, a)} />
      <OrgLimits limits={state?.org ?? []} />
      <div class="error-slot" role="alert">
        {error}
      </div>
      <div class="tabs" role="tablist" aria-label="Views">
        {(['task', 'audit'] as const).map((t) => (
          <button
            key={t}
            type="button"
            role="tab"
            id={`tab-${t}`}
            aria-selected={tab === t}
            aria-controls={`panel-${t}`}
            tabIndex={tab === t ? 0 : -1}
            onClick={() => setTab(t)}
            onKeyDown={(e) => {
              if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
                const next = t === 'task' ? 'audit' : 'task';
                setTab(next);
                document.getElementById(`tab-${next}`)?.focus();
              }
            }}
          >
            {t === 'task' ? 'Task' : 'Audit log'}
          </button>
        ))}
      </div>
      <div class="panel" id={`panel-${tab}`} role="tabpanel" aria-labelledby={`tab-${tab}`}>
        {tab === 'audit' ? (
          <AuditLog entries={entries} filter={filter} onFilter={setFilter} onOpenFull={() => void openFullLog()} />
        ) : refused && state === null ? (
          <p class="notice">This page cannot start, change or end a task. Open AgentsFence from the toolbar.</p>
        ) : task === null ? (
          <form onSubmit={start} class="stack">
            {state?.notice !== undefined && (
              <p class="notice" role="alert">
                {state.notice}
              </p>
            )}
            <label for="task-input">Task</label>
            <textarea
              id="task-input"
              rows={4}
              value={taskText}
              placeholder="e.g. Read my inbox on mail.test and email bob@example.com a summary. Don't buy anything."
              onInput={(e) => setTaskText(e.currentTarget.value)}
              disabled={busy !== null}
            />
            <button type="submit" disabled={busy !== null}>
              Start task
            </button>
            {busy === 'start' && <Progress backend={backend} />}
          </form>
        ) : (
          <div class="stack">
            <section aria-labelledby="task-words-h">
              <h2 id="task-words-h">Your task</h2>
              <blockquote class="task-words">{task.request}</blockquote>
              {task.followUps.map((f, i) => (
                <blockquote key={i} class="task-words followup">
                  {f}
                </blockquote>
              ))}
            </section>
            <p class="muted" role="status">
              Compiled by <strong>{task.report.backend}</strong> in {Math.round(task.report.durationMs)} ms
              {task.turns > 1 ? ` · ${task.turns} instructions` : ''}.
            </p>
            {task.report.fallbackReason !== null && (
              <p class="notice">The remote compiler failed, so the task is read-only: {task.report.fallbackReason}</p>
            )}
            <PolicyPanel policy={task.policy} report={task.report} />
            <SanitizerSummary transport={transport} taskId={task.taskId} />
            <form onSubmit={followUp} class="stack">
              <label for="followup-input">Add instruction</label>
              <textarea id="followup-input" rows={2} value={followText} onInput={(e) => setFollowText(e.currentTarget.value)} disabled={busy !== null} />
              <button type="submit" disabled={busy !== null}>
                Add instruction
              </button>
              {busy === 'followup' && <Progress backend={backend} />}
            </form>
            <button type="button" class="deny" onClick={end} disabled={busy !== null}>
              End task
            </button>
          </div>
        )}
      </div>
    </div>
  );
}

function Progress({ backend }: { backend: string }) {
  return (
    <p class="progress" role="status">
      <progress aria-label="Compiling" /> Compiling with {backend}…
    </p>
  );
}
