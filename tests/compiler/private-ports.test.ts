import { describe, expect, it } from 'vitest';
import { compileWith, draftOf, permission, rules } from './helpers';

/**
 * A private host the user names is named with its port (src/core/addresses.ts): the compiler keeps the
 * port the user wrote, and a model's draft cannot name another port, another name for the machine or a
 * subdomain.
 */
describe('private hosts keep their port', () => {
  it.each([
    ['Check the build status on my dev server at localhost:3000', ['localhost:3000']],
    ['Open http://localhost:8080/admin and read the queue', ['localhost:8080']],
    ['Open https://router.lan and check the firmware', ['router.lan:443']],
    ['Open http://127.0.0.1:5000/ and read the log', ['127.0.0.1:5000']],
    ['Open http://[::1]:3000/ and read the page', ['[::1]:3000']],
    ['Check the status of dev.localhost:5173', ['dev.localhost:5173']],
    ['Open the router admin page at 192.168.1.1 and read the status', ['192.168.1.1']],
  ])('%s → %j', (request, domains) => {
    expect(rules(request).domains).toEqual(domains);
  });

  it.each(['Set the proxy to localhost:3128 on router.test', 'Set the webhook to localhost:9000 in the settings on app.test'])('a local address typed into a setting is not a place the task may reach: %s', (request) => {
    expect(rules(request).domains?.some((d) => d.startsWith('localhost'))).not.toBe(true);
  });

  it('a draft that leaves the port out gets the port of the user\'s words; another port, name or subdomain is removed', () => {
    const request = 'Check the build status on my dev server at localhost:3000';
    const { policy, removed } = compileWith(request, () =>
      draftOf(permission({ riskClass: 'READ', quote: request, domains: ['localhost', 'localhost:9222', '127.0.0.1:3000', 'admin.localhost:3000', 'http://localhost:5432/'] })),
    );
    expect(policy.domains).toEqual(['localhost:3000']);
    expect(removed.map((r) => r.ref)).toEqual(['domains:localhost:9222', 'domains:127.0.0.1:3000', 'domains:admin.localhost:3000', 'domains:http://localhost:5432/']);
  });
});
