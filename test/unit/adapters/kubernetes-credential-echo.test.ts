import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubernetesReader, kubeConfigForEks } from '../../../functions/adapters/kubernetes-client.js';
import { ClusterSourceError } from '../../../functions/core/gitops/ports.js';
import {
  type FakeKubernetes,
  type RecordedResponse,
  startFakeKubernetes,
} from '../../helpers/fake-kubernetes.js';

/**
 * A Kubernetes API server, or an authenticating proxy in front of it (Rancher, an OIDC proxy, a
 * gateway), may quote the credentials it refused in its error body. Tokens of kubeconfigs and EKS
 * have no shape a value rule knows (`k8s-aws-v1.…`, a static token), so the reader redacts what
 * its own request sent, in every error it builds, whichever way the kubeconfig supplied it.
 */
const EKS_TOKEN = 'k8s-aws-v1.aHR0cHM6Ly9zdHMuZXUtd2VzdC0xLmFtYXpvbmF3cy5jb20vP0NBTkFSWWVrcw';
const STATIC_TOKEN = 'CANARYstatic0token0abcdef';
const EXEC_TOKEN = 'CANARYexec0plugin0token0xyz';
const PASSWORD = 'CANARYbasic0password0123';

/** Each way a kubeconfig hands the reader a credential, and the header the fake accepts for it. */
const CREDENTIALS: Array<{ name: string; header: string; config: (server: string) => KubeConfig }> = [
  {
    name: 'EKS token',
    header: `Bearer ${EKS_TOKEN}`,
    config: (server) => kubeConfigForEks({ cluster: 'shop', server }, EKS_TOKEN),
  },
  {
    name: 'kubeconfig token',
    header: `Bearer ${STATIC_TOKEN}`,
    config: (server) => kubeConfigOf(server, { name: 'u', token: STATIC_TOKEN }),
  },
  {
    // client-go trims a token file; a token pasted with its newline is sent without it too.
    name: 'kubeconfig token with a trailing newline',
    header: `Bearer ${STATIC_TOKEN}`,
    config: (server) => kubeConfigOf(server, { name: 'u', token: `${STATIC_TOKEN}\n` }),
  },
  {
    name: 'exec plugin',
    header: `Bearer ${EXEC_TOKEN}`,
    config: (server) =>
      kubeConfigOf(server, {
        name: 'u',
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1beta1',
          command: process.execPath,
          args: [
            '-e',
            `console.log(JSON.stringify({kind:'ExecCredential',apiVersion:'client.authentication.k8s.io/v1beta1',status:{token:'${EXEC_TOKEN}',expirationTimestamp:'2999-01-01T00:00:00Z'}}))`,
          ],
        },
      }),
  },
  {
    name: 'basic auth',
    header: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`,
    config: (server) => kubeConfigOf(server, { name: 'u', username: 'admin', password: PASSWORD }),
  },
];

function kubeConfigOf(server: string, user: Record<string, unknown>): KubeConfig {
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: true }],
    users: [user],
    contexts: [{ name: 'c', cluster: 'c', user: 'u' }],
    currentContext: 'c',
  });
  return config;
}

/** A Status body that quotes the request's Authorization header, as a careless proxy would. */
function echoing(status: number): RecordedResponse {
  return {
    status,
    body: {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      code: status,
      message: `request with Authorization ${'%HEADER%'} refused; token ${'%TOKEN%'} is not allowed`,
    },
  };
}

const FAILURES: Record<string, RecordedResponse> = {
  'GET /api/v1/namespaces/shop/configmaps/forbidden': echoing(403),
  'GET /api/v1/namespaces/shop/configmaps/broken': echoing(500),
  'PATCH /api/v1/namespaces/shop/configmaps/flags': echoing(422),
  'PATCH /api/v1/namespaces/shop/configmaps/refused': echoing(400),
  'GET /api/v1/namespaces/shop/secrets': echoing(403),
  'GET /version': echoing(503),
};
const LIVE = ['flags', 'refused'].map((name) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'shop' },
  data: { a: 'b' },
}));

let kube: FakeKubernetes;
let accepted = '';
beforeAll(async () => {
  kube = await startFakeKubernetes({
    objects: LIVE,
    authorize: (header) => header === accepted,
    failures: new Proxy(FAILURES, {
      // The recorded answer, with the credentials of the request being answered.
      get: (target, key: string) => {
        const answer = target[key];
        if (answer === undefined) return undefined;
        const token = accepted.split(' ')[1] ?? '';
        const secret = accepted.startsWith('Basic ') ? PASSWORD : token;
        return JSON.parse(
          JSON.stringify(answer).replace('%HEADER%', accepted).replace('%TOKEN%', secret),
        ) as RecordedResponse;
      },
    }),
    dryRun: () => ({ status: 200, body: LIVE[0] }),
  });
});
afterAll(async () => {
  await kube?.close();
});

/** The text of every error (thrown, or a refusal's reason) the reader gives for each failing request. */
async function errorTexts(config: KubeConfig): Promise<string[]> {
  const reader = createKubernetesReader({ config: async () => config, timeoutMs: 10_000 });
  const request = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', name, namespace: 'shop' });
  const texts: string[] = [];
  const caught = async (work: Promise<unknown>) => {
    try {
      const result = await work;
      if (result && typeof result === 'object' && 'reason' in result) texts.push(String(result.reason));
      else texts.push(`no error: ${JSON.stringify(result)}`);
    } catch (error) {
      expect(error).toBeInstanceOf(ClusterSourceError);
      texts.push((error as Error).message);
    }
  };
  await caught(reader.readLive(request('forbidden')));
  await caught(reader.readLive(request('broken')));
  await caught(reader.dryRunApply(request('flags'), LIVE[0]!, 'kubectl'));
  await caught(reader.dryRunApply(request('refused'), LIVE[1]!, 'kubectl'));
  await caught(reader.listObjects({ apiVersion: 'v1', kind: 'Secret', namespace: 'shop' }));
  await caught(reader.clusterCapabilities());
  return texts;
}

describe('the Kubernetes reader never repeats the credentials its request carried', () => {
  it.each(CREDENTIALS)('$name: in GET, dry-run, refusal, LIST and discovery errors', async (credential) => {
    accepted = credential.header;
    const texts = await errorTexts(credential.config(kube.server));
    expect(texts).toHaveLength(6);
    for (const text of texts) {
      // The server was reached and answered: the message is its own, with the credential cut out.
      expect(text).toContain('refused; token (redacted) is not allowed');
      expect(text).not.toMatch(/CANARY|k8s-aws-v1|YWRtaW46/);
    }
  });
});
