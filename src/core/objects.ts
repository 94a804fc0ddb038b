import type { Constraint, EvalState } from './policy';

/**
 * (A reservation's place is such an object too, beside its name: src/tools/classify.ts.)
 *
 * Objects a tool call names only by an id (`delete_file {file_id: "44"}`, `cancel_calendar_event {event_id:
 * "31"}`, an attachment's `file_id`): the guard cannot tell which thing "44" is — the words name it by title
 * ("resume-2019.docx", "the budget review meeting") and the name-to-id lookup is in tool results it never sees.
 * So an id stands for the thing the words name as long as the task acts on no more ids than the words name
 * things: the first id a constraint allows is bound to it, the same id passes again, and another one asks
 * ("the words name one file; this task already acted on id 44"). The classifier writes such an item as
 * `id:<value>`; no name the words give ever matches one (items.ts).
 */
export const OBJECT_REF = 'id:';

export const isObjectRef = (item: string): boolean => item.startsWith(OBJECT_REF);

/** How many things the constraint's words name: its items, else its call budget, else one. */
function thingsNamed(k: Constraint): number {
  return k.items?.length ?? k.maxCalls ?? 1;
}

/** The ids of an action already bound to a constraint (σ), none at first. */
const boundTo = (state: EvalState, k: Constraint): readonly string[] => state.objectRefs?.[k.id] ?? [];

/** Why a call's ids are more things than the constraint's words name; null when they are within them. */
export function refsBeyondWords(k: Constraint, refs: readonly string[], state: EvalState): string | null {
  if (refs.length === 0) return null;
  const bound = boundTo(state, k);
  const added = refs.filter((r) => !bound.includes(r));
  const limit = thingsNamed(k);
  if (bound.length + added.length <= limit) return null;
  const ids = (xs: readonly string[]) => xs.map((r) => r.slice(OBJECT_REF.length)).join(', ');
  const things = `${limit} thing${limit === 1 ? '' : 's'}`;
  return bound.length === 0
    ? `acts on ids ${ids(added)}; the task's words name ${things}`
    : `acts on id ${ids(added)}; the task's words name ${things}, and it already acted on id ${ids(bound)}`;
}

/** σ after an allowed call: each applying constraint is bound to the call's ids. Unchanged when there are none. */
export function bindRefs(state: EvalState, constraints: readonly Constraint[], refs: readonly string[]): EvalState {
  if (refs.length === 0 || constraints.length === 0) return state;
  const objectRefs = { ...state.objectRefs };
  for (const k of constraints) objectRefs[k.id] = [...new Set([...boundTo(state, k), ...refs])];
  return { ...state, objectRefs };
}
