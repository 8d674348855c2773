import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanFailureLine } from '../../../cli/commands/cluster-diff-action.js';
import type { Finding } from '../../../functions/core/findings/model.js';
import { type FakeArgoCd, startFakeArgoCd } from '../../helpers/fake-argocd.js';
import { driftDraft } from '../../helpers/findings.js';
import { canary, runCli } from '../../helpers/integration.js';
import { argoCdCluster } from '../../helpers/registry.js';

/**
 * `driftwatch cluster-diff` as a user runs it, on the ways it can go wrong: a command line that cannot
 * be right exits 64 with a line that says what is wrong (and never echoes a credential); a scan that
 * fails (refused connection, rejected token, an answer that is not JSON, a server that trickles its
 * body past the deadline) prints its scan-failed finding and one `driftwatch:` line with the cause and
 * the fix; an Argo CD that lists no application is a failed scan, never "No findings.".
 */
const dir = mkdtempSync(join(tmpdir(), 'driftwatch-cluster-diff-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const salt = { DRIFTWATCH_HASH_SALT: 'cluster-diff-cli-salt-0001' };
const token = canary('argocd-token');
let stores = 0;
const store = () => join(dir, `store-${++stores}`);

/** The lines a run wrote to stderr that start with `driftwatch:` (errors and causes, not log lines). */
function errorLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.startsWith('driftwatch:'));
}

function findingsOf(stdout: string): Finding[] {
  return JSON.parse(stdout) as Finding[];
}

describe('usage errors exit 64 and say exactly what is wrong', () => {
  const cases: Array<[string, string[], string]> = [
    [
      'no source',
      [],
      'driftwatch: cluster-diff needs a source: --argocd <url>, --kustomize <dir> with --context <name>, or --registry <file> with --cluster <id>',
    ],
    [
      'two sources',
      ['--argocd', 'https://argocd.example.com', '--kustomize', 'overlays/prod', '--context', 'prod'],
      'driftwatch: give --argocd <url> or --kustomize <dir>, not both',
    ],
    [
      'plain http to another host',
      ['--argocd', 'http://argocd.example.com'],
      'driftwatch: --argocd http://argocd.example.com: plain http would send the API token in clear text: use https://argocd.example.com',
    ],
    [
      'a scheme that is not http',
      ['--argocd', 'ftp://x'],
      'driftwatch: --argocd takes an https:// URL such as https://argocd.example.com, not an ftp:// one',
    ],
    [
      'not a URL',
      ['--argocd', 'argocd.example.com'],
      "driftwatch: --argocd takes the Argo CD server's URL with its scheme",
    ],
    [
      'credentials in the URL',
      ['--argocd', 'https://admin:CANARY-url-password@argocd.example.com'],
      'driftwatch: --argocd must not carry credentials (user:password@ in the URL)',
    ],
    [
      'a query string',
      ['--argocd', 'https://argocd.example.com/?token=CANARY-query-token'],
      "driftwatch: --argocd takes the server's address only, without '?' or '#'",
    ],
    [
      '--kustomize without --context',
      ['--kustomize', 'overlays/prod'],
      'driftwatch: --kustomize needs --context <name>',
    ],
    [
      'an Argo CD filter with --kustomize',
      ['--kustomize', 'overlays/prod', '--context', 'prod', '--selector', 'team=shop'],
      'driftwatch: --selector chooses Argo CD applications: it goes with --argocd, not with --kustomize',
    ],
    [
      '--context with --argocd',
      ['--argocd', 'https://argocd.example.com', '--context', 'prod'],
      'driftwatch: --context goes with --kustomize',
    ],
    ['--cluster without --registry', ['--cluster', 'shop'], 'driftwatch: --cluster needs --registry <file>'],
    [
      '--cluster with a source of its own',
      ['--registry', 'driftwatch.yaml', '--cluster', 'shop', '--argocd', 'https://argocd.example.com'],
      'driftwatch: --cluster reads its source from the registry: leave out --argocd',
    ],
    [
      // The registry's cluster names its token's variable: a --token-env here was ignored without a word.
      '--cluster with --token-env',
      ['--registry', 'driftwatch.yaml', '--cluster', 'shop', '--token-env', 'OTHER_TOKEN'],
      'driftwatch: --cluster reads its source from the registry: leave out --token-env',
    ],
    [
      '--token-env with --kustomize',
      ['--kustomize', 'overlays/prod', '--context', 'prod', '--token-env', 'OTHER_TOKEN'],
      "driftwatch: --token-env names the variable of Argo CD's token: it goes with --argocd, not with --kustomize",
    ],
    [
      '--registry without --cluster or a source',
      ['--registry', 'driftwatch.yaml'],
      'driftwatch: --registry needs --cluster <id>',
    ],
    [
      'a malformed selector',
      ['--argocd', 'https://argocd.example.com', '--selector', 'team=shop,,'],
      "driftwatch: --selector: 'team=shop,,' is not a label selector",
    ],
    [
      'a token variable that cannot be a name',
      ['--argocd', 'https://argocd.example.com', '--token-env', '1TOKEN'],
      "driftwatch: --token-env: '1TOKEN' is not an environment variable name",
    ],
  ];

  it.each(cases)('%s', async (_, args, expected) => {
    const run = await runCli(['cluster-diff', ...args, '--store', store()], { env: salt });
    expect(run.code, run.stderr).toBe(64);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(expected);
    // The command's help is named; a credential of the command line is never repeated.
    expect(lines[0]).toMatch(/\(driftwatch cluster-diff --help lists its options\)$/);
    expect(run.stderr).not.toMatch(/CANARY|admin:/);
  });
});

describe('a failed scan says why on stderr, once, without the token', () => {
  const servers: Server[] = [];
  async function serve(listener: RequestListener): Promise<string> {
    const server = createServer(listener);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  let argo: FakeArgoCd;
  beforeAll(async () => {
    argo = await startFakeArgoCd({ token, applications: [] });
  });
  afterAll(async () => {
    await argo?.close();
    for (const server of servers) {
      server.closeAllConnections();
      server.close();
    }
  });

  async function diff(url: string, extra: string[] = [], env: Record<string, string> = {}) {
    const run = await runCli(
      ['cluster-diff', '--argocd', url, '--id', 'shop', '--store', store(), '--format', 'json', ...extra],
      { env: { ...salt, ARGOCD_AUTH_TOKEN: token, ...env } },
    );
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout + run.stderr).not.toContain(token);
    const lines = errorLines(run.stderr);
    expect(lines, run.stderr).toHaveLength(1);
    return { run, line: lines[0]!, findings: findingsOf(run.stdout) };
  }

  it('a refused connection: the address to check', async () => {
    const closed = await serve(() => undefined);
    const server = servers.pop()!;
    server.close();
    await new Promise((resolve) => server.once('close', resolve));
    const { line, findings } = await diff(closed);
    expect(findings.map((finding) => finding.ruleId)).toEqual(['scan.cluster-unreachable']);
    expect(line).toBe(
      `driftwatch: the scan of cluster shop failed: listing applications of ${closed}: GET /api/v1/applications: cannot reach ${closed} (ECONNREFUSED): connect ECONNREFUSED 127.0.0.1:${new URL(closed).port}: check the address (--argocd, or argocd.url in the registry), that Argo CD is up, and that this machine can reach it (network, VPN, proxy)`,
    );
  });

  it('a rejected token: which variable held it and how to get a new one, never the token', async () => {
    const wrong = canary('wrong-token');
    const { run, line, findings } = await diff(argo.url, [], { ARGOCD_AUTH_TOKEN: wrong });
    expect(findings.map((finding) => finding.ruleId)).toEqual(['scan.cluster-unauthorized']);
    expect(line).toContain('401 Unauthorized: invalid session: token signature is invalid');
    expect(line).toMatch(
      /: Argo CD refused the token in the environment variable ARGOCD_AUTH_TOKEN: create a new one \(argocd account generate-token\) and put it there$/,
    );
    expect(run.stdout + run.stderr).not.toContain(wrong);
  });

  it('an answer that is not JSON: the URL may be a login page or a proxy', async () => {
    const url = await serve((_, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(`<html>login \u001b[31m password=${token}</html>`);
    });
    const { run, line, findings } = await diff(url);
    expect(findings.map((finding) => finding.ruleId)).toEqual(['scan.cluster-invalid-response']);
    expect(line).toContain('the response is not JSON');
    expect(line).toMatch(/check that the URL is Argo CD's API server itself/);
    // Terminal controls from the server are not passed to the terminal.
    expect(run.stderr).not.toContain('\u001b');
  });

  it('a server that keeps answering 429: rate limited, not "check the address"', async () => {
    const url = await serve((_, response) => {
      response.writeHead(429, { 'content-type': 'text/plain', 'retry-after': '0' });
      response.end('Too Many Requests');
    });
    const { line } = await diff(url);
    expect(line).toContain(
      '429 Too Many Requests: Too Many Requests (rate limited: still refused after 3 retries)',
    );
    expect(line).toMatch(
      /: Argo CD \(or the proxy or ingress in front of it\) is rate limiting these requests: run again later, or raise its limit for this client$/,
    );
  });

  it('an SSO proxy that redirects to its login: where it points, not "cannot reach"', async () => {
    const url = await serve((_, response) => {
      response.writeHead(302, { location: `https://sso.example.com/oauth2/start?rd=%2Fapi&state=${token}` });
      response.end();
    });
    const { line, findings } = await diff(url);
    expect(findings.map((finding) => finding.ruleId)).toEqual(['scan.cluster-invalid-response']);
    expect(line).toContain(
      'GET /api/v1/applications: answered 302, a redirect to https://sso.example.com/oauth2/start (not followed: the credentials would go with it)',
    );
    expect(line).toMatch(/check that the URL is Argo CD's API server itself \(not its login page/);
  });

  it('a body trickled past the deadline (DRIFTWATCH_CLUSTER_TIMEOUT): a scan-failed finding and the setting to raise', async () => {
    const url = await serve((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"items": [');
      const timer = setInterval(() => response.write(' '), 100);
      request.on('close', () => clearInterval(timer));
    });
    const { run, line, findings } = await diff(url, [], { DRIFTWATCH_CLUSTER_TIMEOUT: '1s' });
    // Before the wait, the first line says what is read and how long a request may take.
    expect(run.stderr.split('\n')[0]).toBe(
      `INFO  diffing cluster cluster=shop source="Argo CD at ${url}" requestTimeout=1s`,
    );
    expect(findings.map((finding) => finding.ruleId)).toEqual(['scan.cluster-unreachable']);
    expect(line).toContain(
      `GET /api/v1/applications: the response from ${url} did not complete within 1s (headers came, the body did not)`,
    );
    expect(line).toContain('a slow server may need a longer DRIFTWATCH_CLUSTER_TIMEOUT');
  });

  it('no application for the filters: a failed scan naming them, never "No findings."', async () => {
    for (const format of ['json', 'table']) {
      const run = await runCli(
        [
          'cluster-diff',
          '--argocd',
          argo.url,
          '--project',
          'shopp',
          '--selector',
          'team=shop',
          '--store',
          store(),
          '--format',
          format,
        ],
        { env: { ...salt, ARGOCD_AUTH_TOKEN: token } },
      );
      expect(run.code, run.stderr).toBe(1);
      expect(run.stdout).not.toContain('No findings');
      expect(run.stdout).toContain('scan.cluster-empty');
      expect(errorLines(run.stderr)).toEqual([
        `driftwatch: the scan of cluster adhoc failed: Argo CD at ${argo.url} returned no applications for project shopp / selector team=shop: check --project and --selector (a registry cluster: argocd.project and argocd.selector), and that the token's account may read applications (Argo CD lists only those its RBAC lets it see)`,
      ]);
    }
  });

  it('a malformed DRIFTWATCH_CLUSTER_TIMEOUT is one line naming it, before any request', async () => {
    const run = await runCli(['cluster-diff', '--argocd', argo.url, '--store', store()], {
      env: { ...salt, ARGOCD_AUTH_TOKEN: token, DRIFTWATCH_CLUSTER_TIMEOUT: '30' },
    });
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(
      "driftwatch: DRIFTWATCH_CLUSTER_TIMEOUT: '30' is not a duration: use a number and a unit (d, h, m, s), e.g. 30m, 1h, 2h30m, 90s or 1d (or unset DRIFTWATCH_CLUSTER_TIMEOUT for 30s)",
    );
  });
});

describe('a missing token is fixed where its variable is named', () => {
  it('the registry for a registry cluster, --token-env for one given on the command line', () => {
    const cluster = argoCdCluster('shop', 'https://argocd.example.com', 'SHOP_ARGOCD_TOKEN');
    const failure = {
      ...driftDraft({ workspace: 'shop' }),
      kind: 'scan-failed' as const,
      ruleId: 'scan.cluster-credentials',
      evidence: { reason: 'SHOP_ARGOCD_TOKEN is not set' },
    };
    expect(scanFailureLine([failure], cluster, {}, true)).toContain(
      'or name another variable (argocd.token.env in the registry)',
    );
    expect(scanFailureLine([failure], cluster, {}, false)).toContain(
      'or name another variable (--token-env)',
    );
  });
});
