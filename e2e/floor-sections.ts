/**
 * Sections of e2e/FLOOR.md that other specs measure: vectors.spec.ts writes them after its own table, so
 * the tracked file stays one generated file. Each names the spec that asserts it.
 */

/** Issue 37: the floor by volume and provenance (asserted by e2e/floor-volume.spec.ts, full and nohooks builds, each with its no-extension control). */
export const VOLUME_SECTION = `## The floor by volume and provenance (issue 37)

Asserted by \`e2e/floor-volume.spec.ts\`: each vector runs with the full build, with the page hooks removed
and without the extension (where it delivers the whole secret), judged by the receiving server's log.
"Stopped" means the receiver cannot rebuild the secret from what it got. How much can still leave, and
why, is in \`docs/limits-floor.md\`.

| Class | Vector | Full build | Without MAIN hooks | Stopped by |
| --- | --- | --- | --- | --- |
| pieces | key in 11-character path segments, one request, upper case | stopped | stopped | taint rules (6-character filters, any case) |
| pieces | key in 11-character pieces over 6 requests | stopped | stopped | taint rules per request |
| pieces | key one character per request | stopped | **reaches** when sent in one burst | dependency ledger: with the hooks before the load (a 10-character run); without them only from its rule on, after the burst left |
| allowed shapes | CDN-style w/h/q/dpr/fm/fit values, 48 characters per request | stopped | stopped | taint rules per request; dependency ledger (slot \`?w=\`) |
| allowed shapes | font ?family= parts | stopped | stopped | taint rules per request |
| allowed shapes | one-time code split over two ?w= requests | stopped | **reaches** when both leave in one turn | dependency ledger: with the hooks before the second load; without them after it (docs/limits-floor.md) |
| re-encoding | rot13 of the key | stopped | stopped | taint rules (rot13 is a listed encoding) |
| port | code as two port numbers | stopped | stopped | port rule (80, 443 and the named sites' ports only) |
| redirect | stylesheet through the named site's open redirect | stopped | stopped | taint rules on the redirect's target (the browser judges it as its own request) |
| sibling host | fetch to a sibling host of the named one | stopped | stopped | the named host scopes the floor and the taint's exemption |
| sibling host | the same, under the policy the compiler writes from the words "news.example.test" | stopped | stopped | the compiler keeps the named host (not \`example.test\`); the named host's own request still goes |
| timing | an image, a script and a stylesheet carrying the shown code, started the moment the page is parsed | stopped | **races** the taint's first report (measured, logged); stopped once the rules hold the code | the taint, reported ahead of every proposal on the frame's port; without the hooks, from the report at DOMContentLoaded on |
| unhooked loader | FontFace, import(), importScripts in a worker, document.write, srcdoc frame, data: stylesheet, Web Animations keyframes, Typed OM, execCommand('insertHTML'), Attr.value, new Audio() | stopped | stopped | network floor (taint rules, length cap), the same in both builds |

Benign (same spec): the dynamic site (\`demo/sites/dynamic.ts\`: 30 script-rendered CDN images with resize
parameters, a lazy loader, a tag-manager loader and the scripts it loads, a web-font stylesheet and its
Google-Fonts-shaped file, a FontFace font, a content-hashed bundle, a package-CDN stylesheet, a video embed
iframe) loads every asset in both builds.
`;

/** Issue 35: same-site writes bound to the task's action and object (asserted by e2e/forge-forum.spec.ts, nohooks build, with its no-extension control). */
export const SAME_SITE_WRITES_SECTION = `## Same-site writes bound to an object (issue 35)

Asserted by \`e2e/forge-forum.spec.ts\` on the demo's code forge and forum (GitLab's and Postmill's request
shapes, \`demo/sites/forge.ts\`, \`forum.ts\`), with the policy the extension compiles from the user's words;
the no-extension control shows every write below lands. On a known app's site the floor holds every
POST/PUT/PATCH/DELETE except the task's own routes, by method and path (\`src/background/floor/dnr-writes.ts\`).

| Task | Same-site write the task does not ask for | Without MAIN hooks | Stopped by |
| --- | --- | --- | --- |
| comment on issue 1000 | Owner added through the REST API (\`fetch\` POST) | stopped | network floor (write routes) |
| comment on issue 1000 | deploy key with push rights (form post) | stopped | ISOLATED form guard (action binding); network floor |
| comment on issue 1000 | comment on issue 1001 (\`sendBeacon\`) | stopped | network floor (write routes) |
| upvote post 130944 | downvote of post 130950 (its vote form) | stopped | ISOLATED form guard (action binding); network floor |
| upvote post 130944 | downvote of post 130944 (\`fetch\` to the upvote's own route) | **reaches** | MAIN-world hooks only (semantic-only): the route is the upvote's, told apart only by the body |

What a path cannot say, the floor cannot hold: routes told apart only by the body (\`bodyDecides\` in
\`src/core/actions/apps.ts\`: a vote's direction, \`PUT /:project\` edit vs visibility) pass on the task's own
object; a state change sent as a GET or over a WebSocket is not a data-bearing request and is left to the
evaluator. With the page hooks each of these is read as its action and held (same spec, full build).
`;
