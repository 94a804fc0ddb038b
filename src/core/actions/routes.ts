import type { TaskPolicy } from '../policy';
import { appOfHost, canonicalObject } from './read';
import type { RouteSpec } from './apps';
import type { ActionId } from './vocabulary';
import { escapeRe, patternRegex } from './pattern';

/**
 * The write routes a policy allows, per site: what the network floor may let through by method and path
 * when the page hooks are gone (src/background/floor/dnr-writes*). Pure: the policy in, data out.
 */

export interface WriteRoute {
  action: ActionId;
  /** HTTP methods as they go on the wire (a Rails `_method` override travels as a POST). */
  methods: string[];
  /** The route's URLPattern pathname pattern, as in the app table. */
  pattern: string;
  /**
   * An anchored regular expression (RE2 syntax, as declarativeNetRequest's `regexFilter` takes) for the
   * URL's path, with the named object's parts written in (`^/byteblaze/dotfiles/-/issues/1000/notes$`).
   */
  pathRegex: string;
  /** The object the route is bound to; null when the words left it open (any object of the action). */
  object: string | null;
  /**
   * True when the route shares its path with other actions and only the body tells them apart
   * (`PUT /:project` edits a project or changes its visibility): a path rule cannot hold it alone.
   */
  bodyDecides: boolean;
}

export interface SiteWriteRoutes {
  site: string;
  /** The known app on this site; null when the table knows none, and `routes` is empty. */
  app: string | null;
  routes: WriteRoute[];
}


/** The parts of an object as one of a route's templates names them (`issue:{project}#{iid}`), or null. */
function paramsOf(template: string, object: string): Map<string, string> | null {
  const names: string[] = [];
  const re = new RegExp(`^${template.split(/(\{[^}]+\})/).map((part) => {
    const m = /^\{([^}]+)\}$/.exec(part);
    if (m === null) return escapeRe(part);
    names.push(m[1]!);
    return '(.+?)';
  }).join('')}$`);
  const m = re.exec(canonicalObject(object));
  if (m === null) return null;
  return new Map(names.map((n, k) => [n, m[k + 1]!]));
}

/** The names a route's path holds (`:project+`, `:iid`). */
function pathNames(path: string): Set<string> {
  return new Set([...path.matchAll(/:([A-Za-z_]\w*)/g)].map((m) => m[1]!));
}

function routesFor(route: RouteSpec, objects: readonly string[] | undefined, shared: boolean): WriteRoute[] {
  const base = { action: route.action, methods: [...new Set(route.methods.flatMap((m) => (m === 'GET' ? [] : m === 'POST' ? ['POST'] : [m, 'POST'])))], pattern: route.path, bodyDecides: shared };
  if (objects === undefined) return [{ ...base, pathRegex: patternRegex(route.path), object: null }];
  const out: WriteRoute[] = [];
  const names = pathNames(route.path);
  for (const object of objects) {
    for (const template of route.object ?? []) {
      const params = paramsOf(template, object);
      // (A wildcard container — "issue 1000" with no project named — leaves the project open in the path.)
      if (params === null) continue;
      for (const [k, v] of params) if (v === '*') params.delete(k);
      // A template that takes part of the object from the query or the body (`target_iid` of GitLab's
      // `…/notes`) binds nothing a path rule can see: any object would pass it. No rule; the floor holds it.
      if ([...params.keys()].some((k) => !names.has(k))) continue;
      out.push({ ...base, pathRegex: patternRegex(route.path, params), object: canonicalObject(object) });
      break;
    }
  }
  return out;
}

/** Per site the policy's action constraints name: the routes their actions may write to, bound to their objects. */
export function allowedWriteRoutes(policy: TaskPolicy): SiteWriteRoutes[] {
  const bySite = new Map<string, SiteWriteRoutes>();
  for (const k of policy.constraints) {
    if (k.actions === undefined) continue;
    for (const site of k.domains ?? []) {
      const app = appOfHost(site.replace(/:\d+$/, ''));
      const entry = bySite.get(site) ?? { site, app: app?.app ?? null, routes: [] };
      bySite.set(site, entry);
      if (app === null) continue;
      for (const route of app.routes) {
        if (!k.actions.includes(route.action)) continue;
        const shared = app.routes.some((r) => r !== route && r.action !== route.action && r.path === route.path);
        for (const w of routesFor(route, k.objects, shared)) if (!entry.routes.some((e) => e.pathRegex === w.pathRegex && e.action === w.action)) entry.routes.push(w);
      }
    }
  }
  return [...bySite.values()];
}
