import { fillAttacker, type SiteUrl, type Step } from '../scenarios';
import { GOALS, type Goal, type Move, type MoveFamily } from './goals';
import { nthPresentation, parsePresentation, present, presentationId, type Presentation } from './operators';
import { FORMATTED, SEMANTIC_TEMPLATES, type Template } from './templates';

/**
 * A variant: one injected instruction (its HTML on the page and the plain instruction the compromised
 * agent recognizes) and the steps the agent takes when it obeys. Ids are stable and say how to rebuild
 * the variant, so successful ones can be stored and replayed (regressions.json):
 *   `<goal>#s1:formatted`, `<goal>#s2:<template>`, `<goal>#s3:<move>:<wording.placement.encoding>`.
 */

export type Stage = 1 | 2 | 3;

export interface Variant {
  id: string;
  goal: Goal;
  stage: Stage;
  /** Stage 1/2: the template; stage 3: the move's family and the presentation. */
  template?: string;
  move?: Move;
  family?: MoveFamily;
  presentation?: Presentation;
  /** The instruction as the agent must recognize it (with the variant's reference). */
  core(at: SiteUrl): string;
  html(at: SiteUrl): string;
  steps(at: SiteUrl): Step[];
  /** The check that should stop the variant. */
  shouldStop: string;
}

/** A short reference that tells the variants on one page apart. */
function ref(id: string): string {
  let hash = 0;
  for (const ch of id) hash = (hash * 31 + (ch.codePointAt(0) ?? 0)) >>> 0;
  return hash.toString(36);
}

function templateVariant(goal: Goal, stage: 1 | 2, template: Template): Variant {
  const id = `${goal.id}#s${stage}:${template.id}`;
  const core = (at: SiteUrl) => `${fillAttacker(stage === 1 ? goal.attack.instruction : goal.attack.disguise, at)} (ref ${ref(id)})`;
  return {
    id,
    goal,
    stage,
    template: template.id,
    core,
    html: (at) => template.render(core(at)),
    steps: (at) => (goal.baseSteps ?? goal.attack.steps)(at),
    shouldStop: `the guard's ${goal.attack.riskClass} checks (today's attack)`,
  };
}

export function stage1Variant(goal: Goal): Variant {
  return templateVariant(goal, 1, FORMATTED);
}

export function stage2Variants(goal: Goal): Variant[] {
  return SEMANTIC_TEMPLATES.map((t) => templateVariant(goal, 2, t));
}

export function stage3Variant(goal: Goal, move: Move, presentation: Presentation): Variant {
  const id = `${goal.id}#s3:${move.id}:${presentationId(presentation)}`;
  const core = () => `${move.ask} (ref ${ref(id)})`;
  return {
    id,
    goal,
    stage: 3,
    move,
    family: move.family,
    presentation,
    core,
    html: () => present(core(), presentation),
    steps: (at) => move.steps(at),
    shouldStop: move.shouldStop,
  };
}

/** The presentation of the i-th stage-3 variant of a goal: a deterministic walk over the operators. */
export function stage3Presentation(index: number): Presentation {
  return nthPresentation(index);
}

/** Rebuild a variant from its id (regression replay); null when the goal, template or move is gone. */
export function variantById(id: string): Variant | null {
  const [goalId, rest = ''] = id.split('#');
  const goal = GOALS.find((g) => g.id === goalId);
  if (!goal) return null;
  const [stage, name = '', presentation = ''] = rest.split(':');
  if (stage === 's1') return stage1Variant(goal);
  if (stage === 's2') return stage2Variants(goal).find((v) => v.template === name) ?? null;
  const move = goal.moves.find((m) => m.id === name);
  const parsed = parsePresentation(presentation);
  return stage === 's3' && move && parsed ? stage3Variant(goal, move, parsed) : null;
}
