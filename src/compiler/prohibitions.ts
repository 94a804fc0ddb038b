import { CONSEQUENTIAL_CLASSES, type RiskClass } from '../core/risk';
import type { Prohibition } from '../core/policy';
import { ACTIONS, ACTION_IDS, GENERAL_VERBS, type ActionId } from '../core/actions/vocabulary';
import { actionsAskedFor } from './actions';
import { analyzeInstruction, type Analysis, type Clause } from './clauses';
import { classOfAnyForm } from './verbs';
import { personalDataNamed } from '../core/personal';

/**
 * Step 2, deterministic prohibitions: bans read from the whole isolated instruction, whatever the
 * drafting backend says. "do not send", "only read", "never delete", "no purchases", "without paying".
 * False positives handled by the clause reader: "don't forget to email" is a request, "no problem,
 * send it" is two clauses, "don't send it to anyone except john@x.com" bans every other recipient.
 */

/** Sending data out through a form post or page request is sending too (curl -d, scp, git push alike). */
const SEND_BAN_ALSO_COVERS: RiskClass = 'EXTERNAL_WRITE';

function requestsOf(analysis: Analysis, cls: RiskClass): Clause[] {
  return analysis.clauses.filter((c) => c.request === cls);
}

/** Addresses the user wrote as objects of requests of these classes whose local part holds the name. */
function resolveName(analysis: Analysis, name: string, classes: RiskClass[]): string[] {
  const out = new Set<string>();
  for (const clause of analysis.clauses) {
    if (clause.request === null || !classes.includes(clause.request)) continue;
    for (const t of clause.objects) {
      const local = t.value.split('@')[0] ?? '';
      if (local.split(/[._+-]/).includes(name)) out.add(t.value);
    }
  }
  return [...out];
}

/** A clause that is only an access level ("read only", "read-only access"). */
const ACCESS_LEVEL = /^\W*(?:with\s+|as\s+)?(?:read|view)[- ]only(?:\s+(?:access|permission|rights))?\W*$/i;

function bannedClasses(clause: Clause): RiskClass[] {
  const classes = new Set<RiskClass>(clause.readOnly ? CONSEQUENTIAL_CLASSES : clause.bans);
  return CONSEQUENTIAL_CLASSES.filter((c) => classes.has(c));
}

/** A general ban on sending also bans other outbound channels, unless the user asked for those. */
function withOutboundChannels(classes: RiskClass[], analysis: Analysis): RiskClass[] {
  if (!classes.includes('COMMUNICATION') || classes.includes(SEND_BAN_ALSO_COVERS) || requestsOf(analysis, SEND_BAN_ALSO_COVERS).length > 0) return classes;
  return CONSEQUENTIAL_CLASSES.filter((c) => c === SEND_BAN_ALSO_COVERS || classes.includes(c));
}

function objectsOf(analysis: Analysis, classes: readonly RiskClass[]): string[] {
  return [...new Set(analysis.clauses.filter((c) => c.request !== null && classes.includes(c.request)).flatMap((c) => c.objects.map((t) => t.value)))];
}

export function extractProhibitions(instruction: string, analysis: Analysis = analyzeInstruction(instruction)): Prohibition[] {
  const out: Prohibition[] = [];
  const seen = new Set<string>();
  const push = (classes: RiskClass[], exceptRecipients: string[], quote: string, actions?: ActionId[]) => {
    const key = `${classes.join(',')}|${[...exceptRecipients].sort().join(',')}|${actions?.join(',') ?? ''}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ id: `p${out.length + 1}`, classes, capabilities: [], tools: [], exceptRecipients, ...(actions === undefined ? {} : { actions }), quote });
  };
  for (const [at, clause] of analysis.clauses.entries()) {
    // ("share budget.xlsx with omar@…, read only": the access a share gives, not a ban on writing.)
    if (clause.readOnly && ACCESS_LEVEL.test(clause.text) && analysis.clauses.slice(0, at).some((c) => c.request === 'PERMISSION_CHANGE' && !c.negated)) continue;
    let classes = bannedClasses(clause);
    if (classes.length === 0) continue;
    // ("book a table, dont share my phone number": the ban's object is the user's own data; whatever write carries
    // it is what the ban holds, of any class — the verb's class is not banned for the rest.)
    const data = clause.negated && !clause.readOnly ? personalDataNamed(clause.text) : [];
    if (data.length > 0) {
      const key = `data|${data.join(',')}`;
      if (!seen.has(key)) {
        seen.add(key);
        out.push({ id: `p${out.length + 1}`, classes: CONSEQUENTIAL_CLASSES, capabilities: [], tools: [], exceptRecipients: [], data, quote: clause.text });
      }
      continue;
    }
    // ("email hr@bigco.test back …, dont cc anyone", "dont email anyone outside northwind": a ban of copying anyone
    // in, or of reaching anyone outside a group, in a class the task asks to reach named people in, bans everyone but
    // them — as "anyone else". "Do not send anything to anyone" stays a ban of the whole class.)
    // (With no one named, whom the ban spares is unknown: it stands whole.)
    const spared = (c: RiskClass) => requestsOf(analysis, c).length > 0 && objectsOf(analysis, [c]).length > 0;
    const others = ANYONE.test(clause.text) && (OUTSIDE.test(clause.text) || clause.banWords.some((w) => COPY_WORDS.has(w)));
    if (clause.beyondRequested || (others && classes.some(spared))) {
      // "buy one charger, don't buy anything else": what was requested stays, bounded by its own
      // constraint; recipients other than the requested ones are banned; the rest of the class too.
      const requested = classes.filter((c) => requestsOf(analysis, c).length > 0);
      classes = classes.filter((c) => !requested.includes(c));
      const withRecipients = requested.filter((c) => objectsOf(analysis, [c]).length > 0);
      if (withRecipients.length > 0) push(withRecipients, objectsOf(analysis, withRecipients), clause.text);
      if (classes.length === 0) continue;
    }
    let exceptRecipients = clause.excepted.filter((t) => t.kind === 'email' || t.kind === 'iban' || t.kind === 'phone').map((t) => t.value);
    if (exceptRecipients.length === 0 && clause.exceptedNames.length > 0) {
      // "anyone except John": a name binds only an address the user wrote for such a request.
      exceptRecipients = clause.exceptedNames.flatMap((n) => resolveName(analysis, n, classes));
      // An exception we cannot bind to an address leaves no ban here: such sends still ask.
      if (exceptRecipients.length === 0) continue;
    }
    const namedRecipients = clause.refused.filter((t) => (t.kind === 'email' || t.kind === 'iban' || t.kind === 'phone') && !clause.excepted.includes(t));
    if (exceptRecipients.length === 0 && namedRecipients.length > 0) {
      // "don't email carol@x.com": everyone the user did ask for stays reachable, the rest is banned.
      exceptRecipients = objectsOf(analysis, classes);
    }
    // ("upvote post 130944, don't downvote anything": a ban of named actions in a class the task asks for by another
    // action holds those actions; the rest of the class stays the task's.)
    const scoped = exceptRecipients.length === 0 ? actionScoped(clause, classes, analysis) : new Map<RiskClass, ActionId[]>();
    for (const [cls, actions] of scoped) push([cls], [], clause.text, actions);
    classes = classes.filter((c) => !scoped.has(c));
    if (classes.length === 0) continue;
    push(exceptRecipients.length === 0 ? withOutboundChannels(classes, analysis) : classes, exceptRecipients, clause.text);
  }
  return out;
}

/** Words that make a ban's object everybody: whom the task itself names is then no one the ban means. */
const ANYONE = /\b(?:anyone|anybody|someone|somebody|everyone|everybody)\b/i;
/** Words that make "anyone" everyone outside a group: "anyone outside northwind", "anybody besides the team". */
const OUTSIDE = /\b(?:outside|besides|beyond|other than)\b/i;
/** Ban verbs that copy people in: banned, they leave the send to whom the task names. */
const COPY_WORDS: ReadonlySet<string> = new Set(['cc', 'bcc', "cc'd", 'ccing', 'bccing', 'cced', 'bcced']);

/** Actions too broad to scope a ban by: their verbs name a whole class ("don't post", "don't buy", "don't change"). */
const BROAD: ReadonlySet<ActionId> = new Set(['post', 'edit', 'message', 'pay', 'order', 'share', 'commit', 'delete']);

/** The specific actions a ban word names ("downvoting" → downvote, "comment" → comment); empty when none or a broad one. */
function actionsOfBanWord(word: string): ActionId[] {
  const w = word.toLowerCase();
  const stems = [w, w.replace(/(?:ing|ed|es|s)$/, ''), w.replace(/(?:ing|ed|s)$/, 'e'), w.replace(/([b-df-hj-np-tv-z])\1(?:ing|ed)$/, '$1')];
  const ids = ACTION_IDS.filter((id) => !ACTIONS[id].security && ACTIONS[id].verbs.some((v) => stems.includes(v)) && !GENERAL_VERBS.has(stems.find((x) => ACTIONS[id].verbs.includes(x))!));
  return ids.some((id) => BROAD.has(id)) ? [] : ids;
}

/**
 * Per banned class the task also asks for, the actions the ban names when every banning word of that class names
 * specific ones — and none the task asks for ("don't downvote" under "upvote"): a ban of those actions alone.
 */
function actionScoped(clause: Clause, classes: readonly RiskClass[], analysis: Analysis): Map<RiskClass, ActionId[]> {
  const out = new Map<RiskClass, ActionId[]>();
  const asked = new Set(actionsAskedFor(analysis).flatMap((a) => a.actions));
  // (A request's actions may be of another class than its verb: "reply to forum.test/f/books/130944" is a comment.)
  const askedClasses = new Set<RiskClass>([...asked].map((id) => ACTIONS[id].riskClass));
  for (const cls of classes) {
    if (requestsOf(analysis, cls).length === 0 && !askedClasses.has(cls)) continue;
    const words = clause.banWords.filter((w) => classOfAnyForm(w) === cls);
    if (words.length === 0) continue;
    const per = words.map(actionsOfBanWord);
    if (per.some((ids) => ids.length === 0)) continue;
    const ids = [...new Set(per.flat())];
    if (ids.some((id) => asked.has(id))) continue;
    out.set(cls, ids);
  }
  return out;
}
