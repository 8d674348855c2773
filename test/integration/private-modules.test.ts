import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../functions/core/findings/model.js';
import {
  allFileText,
  type CliRun,
  canary,
  REGION,
  runCli,
  STATE_BUCKET,
  TEST_REGISTRY_OWNERS,
  useMoto,
  useTempDir,
} from '../helpers/integration.js';
import { selfSignedCertificate } from '../helpers/provider-mirror.js';

/**
 * Private modules with real Terraform and real git: a module repository served over HTTP by
 * `git http-backend` behind a server that demands the token (Basic auth, 401 otherwise), a private
 * module registry stand-in over HTTPS (self-signed, trusted through SSL_CERT_FILE) that demands
 * `Authorization: Bearer <token>`, and the SSH path through a stand-in `ssh` (this machine has no
 * sshd) that checks the configuration driftwatch gave git with the real `ssh -G`, then runs the
 * command git asked for locally. One `driftwatch scan` runs every scenario.
 */
const aws = useMoto();
const temp = useTempDir('driftwatch-private-modules-');
const GIT_HTTP_BACKEND = '/usr/lib/git-core/git-http-backend';

const gitToken = canary('git-token');
const wrongToken = canary('wrong-token');
const registryToken = canary('registry-token');

interface Scenario {
  run: CliRun;
  findings: Finding[];
  storeDir: string;
  workRoot: string;
  gitRequests: Array<{ path: string; auth: 'ok' | 'wrong' | 'none' }>;
  registryRequests: Array<{ path: string; authorization: string | undefined }>;
  sshLog: string;
  privateKey: string;
  publicKey: string;
}
const scenario = {} as Scenario;
const servers: Server[] = [];

function listen(server: Server): Promise<number> {
  servers.push(server);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

/** `git http-backend` as CGI, behind Basic auth with the token as the password. */
function gitHttpServer(projectRoot: string, token: string, requests: Scenario['gitRequests']): Server {
  const expected = `Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://git.local');
    const auth = req.headers.authorization;
    requests.push({
      path: url.pathname,
      auth: auth === undefined ? 'none' : auth === expected ? 'ok' : 'wrong',
    });
    if (auth !== expected) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="modules"' });
      res.end();
      return;
    }
    const header = (name: string) => {
      const value = req.headers[name];
      return typeof value === 'string' ? value : undefined;
    };
    const cgiEnv: Record<string, string | undefined> = {
      PATH: process.env.PATH,
      GIT_PROJECT_ROOT: projectRoot,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: url.pathname,
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: req.method ?? 'GET',
      CONTENT_TYPE: header('content-type') ?? '',
      CONTENT_LENGTH: header('content-length'),
      HTTP_CONTENT_ENCODING: header('content-encoding'),
      GIT_PROTOCOL: header('git-protocol'),
      REMOTE_USER: 'terraform',
      REMOTE_ADDR: '127.0.0.1',
    };
    const cgi = spawn(GIT_HTTP_BACKEND, [], { env: cgiEnv as NodeJS.ProcessEnv });
    req.pipe(cgi.stdin);
    const chunks: Buffer[] = [];
    cgi.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    cgi.on('close', () => {
      const output = Buffer.concat(chunks);
      const end = output.indexOf('\r\n\r\n');
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of output.subarray(0, end).toString('utf8').split('\r\n')) {
        const at = line.indexOf(':');
        const [name, value] = [line.slice(0, at).trim(), line.slice(at + 1).trim()];
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else if (name) headers[name] = value;
      }
      res.writeHead(status, headers);
      res.end(output.subarray(end + 4));
    });
  });
}

/** Terraform's module registry protocol for one module, whose download is the git repository. */
function registryServer(
  tls: { key: Buffer; cert: Buffer },
  token: string,
  gitSource: string,
  requests: Scenario['registryRequests'],
): Server {
  return createHttpsServer(tls, (req, res) => {
    const path = req.url ?? '/';
    requests.push({ path, authorization: req.headers.authorization });
    const json = (body: unknown) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (path === '/.well-known/terraform.json') return json({ 'modules.v1': '/v1/modules/' });
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401);
      res.end();
      return;
    }
    if (path === '/v1/modules/acme/network/aws/versions')
      return json({ modules: [{ versions: [{ version: '1.0.0' }] }] });
    if (path === '/v1/modules/acme/network/aws/1.0.0/download') {
      res.writeHead(204, { 'X-Terraform-Get': gitSource });
      res.end();
      return;
    }
    res.writeHead(404);
    res.end();
  }) as unknown as Server;
}

/**
 * Stands in for OpenSSH: records how the real ssh resolves the configuration driftwatch gave git
 * (`ssh -G -F <config> <host>`), checks the key file with ssh-keygen, then runs the command git
 * asked the server to run (git-upload-pack '<path>') here.
 */
const FAKE_SSH = `#!/bin/sh
cfg=; host=
while [ $# -gt 0 ]; do
  case "$1" in
    -F) cfg="$2"; shift 2 ;;
    -o|-p|-i|-l) shift 2 ;;
    -*) shift ;;
    *) host="$1"; shift; break ;;
  esac
done
name="\${host#*@}"
effective=$(/usr/bin/ssh -G -F "$cfg" "$name" 2>/dev/null)
key=$(printf '%s\\n' "$effective" | sed -n 's/^identityfile //p' | head -n1)
known=$(printf '%s\\n' "$effective" | sed -n 's/^userknownhostsfile //p')
{
  echo "host $name"
  printf '%s\\n' "$effective" | grep -E '^(stricthostkeychecking|identitiesonly|batchmode) '
  echo "keyfile $key"
  echo "keymode $(stat -c %a "$key")"
  echo "pubkey $(ssh-keygen -y -f "$key" | cut -d' ' -f1-2)"
  echo "known $(cut -d' ' -f1 "$known")"
} >> "$FAKE_SSH_LOG"
exec sh -c "$*"
`;

/** A root module that calls one module and shows its output. */
function root(dir: string, moduleBlock: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'main.tf'),
    [
      'terraform {',
      '  backend "s3" {',
      '    use_lockfile = true',
      '  }',
      '}',
      'module "network" {',
      moduleBlock,
      '  name = "payments"',
      '}',
      'output "greeting" {',
      '  value = module.network.greeting',
      '}',
      '',
    ].join('\n'),
  );
  return dir;
}

beforeAll(async () => {
  const base = temp.path;
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
      cwd,
      stdio: 'pipe',
    });

  // The module repository, tagged v1, in a bare repository the servers read.
  const moduleDir = join(base, 'module-src');
  mkdirSync(moduleDir);
  writeFileSync(
    join(moduleDir, 'main.tf'),
    `variable "name" {\n  type = string\n}\noutput "greeting" {\n  value = "hello \${var.name}"\n}\n`,
  );
  git(moduleDir, 'init', '-q', '-b', 'main');
  git(moduleDir, 'add', 'main.tf');
  git(moduleDir, 'commit', '-q', '-m', 'module');
  git(moduleDir, 'tag', 'v1');
  const projectRoot = join(base, 'git');
  mkdirSync(projectRoot);
  git(projectRoot, 'clone', '-q', '--bare', moduleDir, 'mod.git');
  const bareRepo = join(projectRoot, 'mod.git');

  scenario.gitRequests = [];
  scenario.registryRequests = [];
  const gitPort = await listen(gitHttpServer(projectRoot, gitToken, scenario.gitRequests));
  const gitHost = `127.0.0.1:${gitPort}`;
  const gitSource = `git::http://${gitHost}/mod.git?ref=v1`;

  const registryCertificate = selfSignedCertificate(base, 'registry');
  const tls = { key: registryCertificate.key, cert: registryCertificate.cert };
  const registryHost = `127.0.0.1:${await listen(registryServer(tls, registryToken, gitSource, scenario.registryRequests))}`;

  execFileSync('ssh-keygen', [
    '-q',
    '-t',
    'ed25519',
    '-N',
    '',
    '-C',
    'deploy',
    '-f',
    join(base, 'deploy-key'),
  ]);
  scenario.privateKey = readFileSync(join(base, 'deploy-key'), 'utf8');
  scenario.publicKey = readFileSync(join(base, 'deploy-key.pub'), 'utf8').split(' ').slice(0, 2).join(' ');
  const bin = join(base, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'ssh'), FAKE_SSH, { mode: 0o755 });
  const sshLog = join(base, 'ssh.log');
  writeFileSync(sshLog, '');

  const roots = join(base, 'roots');
  const workspace = (id: string, dir: string, ...extra: string[]) => [
    `  - id: ${id}`,
    '    owner: platform',
    '    environment: prod',
    `    source: { dir: ${JSON.stringify(dir)} }`,
    `    backend: { bucket: ${STATE_BUCKET}, key: ${id}/terraform.tfstate, region: ${REGION} }`,
    ...extra.map((line) => `    ${line}`),
  ];
  const registryPath = join(base, 'driftwatch.yaml');
  writeFileSync(
    registryPath,
    [
      ...TEST_REGISTRY_OWNERS,
      // Every workspace gets the git token, unless it lists its own moduleSources.
      `moduleSources: [{ host: "${gitHost}", https: { token: { env: PRIVATE_GIT_TOKEN } } }]`,
      'workspaces:',
      ...workspace('git-https', root(join(roots, 'git-https'), `  source = "${gitSource}"`)),
      ...workspace(
        'git-no-token',
        root(join(roots, 'git-no-token'), `  source = "${gitSource}"`),
        'moduleSources: []',
      ),
      ...workspace(
        'git-wrong-token',
        root(join(roots, 'git-wrong-token'), `  source = "${gitSource}"`),
        `moduleSources: [{ host: "${gitHost}", https: { token: { env: WRONG_GIT_TOKEN } } }]`,
      ),
      ...workspace(
        'registry',
        root(join(roots, 'registry'), `  source  = "${registryHost}/acme/network/aws"\n  version = "1.0.0"`),
        `registries: [{ host: "${registryHost}", token: { env: PRIVATE_REGISTRY_TOKEN } }]`,
      ),
      ...workspace(
        'registry-no-token',
        root(
          join(roots, 'registry-no-token'),
          `  source  = "${registryHost}/acme/network/aws"\n  version = "1.0.0"`,
        ),
      ),
      ...workspace(
        'git-ssh',
        root(join(roots, 'git-ssh'), `  source = "git::ssh://git@git.internal.test${bareRepo}?ref=v1"`),
        'moduleSources:',
        `  - host: git.internal.test`,
        `    ssh: { privateKey: { env: DEPLOY_KEY }, knownHosts: "git.internal.test ${scenario.publicKey}" }`,
      ),
      '',
    ].join('\n'),
  );

  // State as the last apply left it: the module's output is recorded, so a scan that evaluated the
  // module finds no drift (one that did not would fail, or report the output as changed).
  for (const id of [
    'git-https',
    'git-no-token',
    'git-wrong-token',
    'registry',
    'registry-no-token',
    'git-ssh',
  ])
    await aws.s3.send(
      new PutObjectCommand({
        Bucket: STATE_BUCKET,
        Key: `${id}/terraform.tfstate`,
        Body: JSON.stringify({
          version: 4,
          terraform_version: '1.11.4',
          serial: 1,
          lineage: `private-modules-${id}`,
          outputs: { greeting: { value: 'hello payments', type: 'string' } },
          resources: [],
          check_results: null,
        }),
      }),
    );

  scenario.storeDir = join(base, 'store');
  scenario.workRoot = join(base, 'work');
  mkdirSync(scenario.workRoot);
  scenario.run = await runCli(
    ['scan', '--registry', registryPath, '--store', scenario.storeDir, '--format', 'json'],
    {
      env: {
        DRIFTWATCH_HASH_SALT: 'integration-test-salt-0011',
        PRIVATE_GIT_TOKEN: gitToken,
        WRONG_GIT_TOKEN: wrongToken,
        PRIVATE_REGISTRY_TOKEN: registryToken,
        DEPLOY_KEY: scenario.privateKey,
        FAKE_SSH_LOG: sshLog,
        // Runs inherit nothing of driftwatch's environment unless named: the stand-in ssh's log.
        DRIFTWATCH_PASS_ENV: 'FAKE_SSH_LOG',
        PATH: `${bin}:${process.env.PATH}`,
        SSL_CERT_FILE: registryCertificate.caFile,
        // The runs' private directories go here, so the test can see that nothing is left.
        TMPDIR: scenario.workRoot,
      },
    },
  );
  scenario.sshLog = readFileSync(sshLog, 'utf8');
  try {
    scenario.findings = JSON.parse(scenario.run.stdout) as Finding[];
  } catch {
    throw new Error(`driftwatch scan printed no JSON (exit ${scenario.run.code}): ${scenario.run.stderr}`);
  }
}, 300_000);

afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

const findingsOf = (workspace: string) =>
  scenario.findings.filter((finding) => finding.workspace === workspace);

describe('private modules with real terraform, git and a registry stand-in', () => {
  it('premise: the scan ran every workspace against moto', () => {
    expect(aws.moto.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:/);
    expect(scenario.run.code, scenario.run.stderr).toBe(1);
  });

  it('git over HTTP(S) with the token: the module is fetched and the scan finds nothing', () => {
    expect(findingsOf('git-https')).toEqual([]);
    expect(scenario.gitRequests.some((request) => request.auth === 'ok')).toBe(true);
  });

  it("without the token, or with a wrong one: one scan-failed finding each, with git's reason and no token", () => {
    const missing = findingsOf('git-no-token');
    expect(missing).toEqual([expect.objectContaining({ kind: 'scan-failed', ruleId: 'scan.init-failed' })]);
    expect(missing[0]!.detail).toMatch(/terminal prompts disabled|could not read Username/);
    const wrong = findingsOf('git-wrong-token');
    expect(wrong).toEqual([expect.objectContaining({ kind: 'scan-failed', ruleId: 'scan.init-failed' })]);
    expect(wrong[0]!.detail).toMatch(/Authentication failed/);
    // git names the host; the hint names the registry key that gives it credentials.
    for (const finding of [...missing, ...wrong])
      expect(finding.detail).toContain('in moduleSources (docs/private-modules.md)');
    // The wrong token was offered (and refused): the helper is what failed, not the plumbing.
    expect(scenario.gitRequests.some((request) => request.auth === 'wrong')).toBe(true);
  });

  it('a private registry gets Authorization: Bearer <token> (TF_TOKEN_<host>) and its module scans; without it, one clear scan-failed', () => {
    expect(findingsOf('registry')).toEqual([]);
    const download = scenario.registryRequests.find((request) => request.path.endsWith('/download'));
    expect(download?.authorization).toBe(`Bearer ${registryToken}`);
    // Only the workspace given the token sends one: nothing leaks from one run to the next.
    const anonymous = scenario.registryRequests.filter((request) => request.authorization === undefined);
    expect(anonymous.some((request) => request.path.endsWith('/versions'))).toBe(true);
    const refused = findingsOf('registry-no-token');
    expect(refused).toEqual([expect.objectContaining({ kind: 'scan-failed', ruleId: 'scan.init-failed' })]);
    expect(refused[0]!.detail).toContain('401 Unauthorized');
    expect(refused[0]!.detail).toContain('in registries (docs/private-modules.md)');
  });

  it('git over SSH: the key (0600) is offered to its host only with host keys checked, and the module scans', () => {
    expect(findingsOf('git-ssh')).toEqual([]);
    const log = scenario.sshLog;
    expect(log).toContain('host git.internal.test');
    expect(log).toContain('stricthostkeychecking true');
    expect(log).toContain('identitiesonly yes');
    expect(log).toContain('batchmode yes');
    expect(log).toContain('keymode 600');
    expect(log).toContain(`pubkey ${scenario.publicKey}`);
    expect(log).toContain('known git.internal.test');
    const keyFile = /^keyfile (.+)$/m.exec(log)?.[1];
    expect(keyFile?.startsWith(scenario.workRoot)).toBe(true);
    expect(existsSync(keyFile!)).toBe(false);
  });

  it("no token or key in findings, the store, stdout, stderr, or anything left in the runs' directories", () => {
    const keyBody = scenario.privateKey.split('\n')[1]!;
    const everything = [
      scenario.run.stdout,
      scenario.run.stderr,
      allFileText(scenario.storeDir),
      allFileText(scenario.workRoot),
    ].join('\n');
    for (const secret of [gitToken, wrongToken, registryToken, keyBody])
      expect(everything).not.toContain(secret);
  });
});
