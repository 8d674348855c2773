/**
 * Format checks for the `clusters` part of the registry, worded like formats.ts: each returns the
 * problem as a sentence, or undefined when the value is fine.
 */
import { X509Certificate } from 'node:crypto';
import jq from '@michaelhomer/jqjs';
import { SECRETS_ELSEWHERE } from './formats.js';

/** Hosts where plain http is accepted (a local test server): a token sent there never leaves the machine. */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * An API server URL that carries a bearer token: https, or http on loopback only (a local test
 * server). Credentials never belong in the URL.
 */
export function apiServerUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `'${text}' is not a URL such as https://argocd.example.com`;
  }
  const loopbackHttp = url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
  if (url.protocol !== 'https:' && !loopbackHttp)
    return `must use https:// (the API token must not travel in clear text)`;
  if (url.username !== '' || url.password !== '') return `must not carry credentials; ${SECRETS_ELSEWHERE}`;
  if (url.search !== '' || url.hash !== '') return `must be the server's address only, without '?' or '#'`;
  return undefined;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The name of the variable that holds a token (the name, never the token). */
export function tokenEnvNameProblem(name: string): string | undefined {
  if (ENV_NAME.test(name)) return undefined;
  return `'${name}' is not an environment variable name: use letters, digits and '_', not starting with a digit`;
}

/** A Secrets Manager secret name or ARN (the secret's value is read at scan time, never stored here). */
export function secretIdProblem(id: string): string | undefined {
  if (/^arn:aws[a-z-]*:secretsmanager:/.test(id)) return undefined;
  if (/^[\w/+=.@-]{1,512}$/.test(id)) return undefined;
  return `'${id}' is not a Secrets Manager secret name or ARN (letters, digits and / _ + = . @ -)`;
}

/** Equality-based label selectors as Argo CD's `selector` parameter takes them: `team=payments,tier!=db`. */
export function labelSelectorProblem(selector: string): string | undefined {
  const requirement =
    /^\s*!?[A-Za-z0-9][\w./-]*\s*((==?|!=)\s*[\w.-]*\s*|\s+(in|notin)\s+\([\w.,\s-]*\)\s*)?$/;
  const parts = selector.split(/,(?![^(]*\))/);
  if (parts.every((part) => requirement.test(part))) return undefined;
  return `'${selector}' is not a label selector such as 'team=payments' or 'team in (a,b),tier!=db'`;
}

const EKS_CLUSTER_NAME = /^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/;

export function eksClusterNameProblem(name: string): string | undefined {
  if (EKS_CLUSTER_NAME.test(name)) return undefined;
  return `'${name}' is not an EKS cluster name (1-100 letters, digits, '-' and '_', starting with a letter or digit)`;
}

/** A base64 PEM as EKS prints it; decoding it here catches a pasted PEM or a truncated copy. */
export function certificateAuthorityProblem(data: string): string | undefined {
  if (isBase64Certificate(data)) return undefined;
  return 'expected the base64 of a PEM certificate, as `aws eks describe-cluster --query cluster.certificateAuthority.data` prints it';
}

/** An Argo CD server's CA, given as the EKS one is; the certificate itself must parse (it is used to connect). */
export function serverCertificateAuthorityProblem(data: string): string | undefined {
  if (data.includes('-----BEGIN'))
    return 'this is the PEM itself: give its base64 on one line (`base64 -w0 ca.pem`)';
  if (!isBase64Certificate(data))
    return "expected the base64 of a PEM certificate: the CA that signed the server's certificate, `base64 -w0 ca.pem`";
  try {
    new X509Certificate(Buffer.from(data, 'base64'));
    return undefined;
  } catch {
    return 'the base64 holds a PEM block that is not a readable X.509 certificate: encode the CA certificate file itself (`base64 -w0 ca.pem`)';
  }
}

function isBase64Certificate(data: string): boolean {
  const decoded = /^[A-Za-z0-9+/=\s]+$/.test(data) ? Buffer.from(data, 'base64').toString('utf8') : '';
  return decoded.includes('-----BEGIN CERTIFICATE-----');
}

/**
 * A server-side apply field manager (`kubectl`, `argocd-controller`, `flux-client-side-apply`):
 * the API server accepts at most 128 printable characters.
 */
export function fieldManagerProblem(name: string): string | undefined {
  if (/^[\x21-\x7e]{1,128}$/.test(name)) return undefined;
  return `'${name}' is not a field manager name such as kubectl or argocd-controller (1-128 printable characters, no spaces)`;
}

/**
 * A jq path expression as Argo CD evaluates `jqPathExpressions` (`path(<expression>)`): one jq cannot
 * compile is refused here rather than ignoring nothing at scan time.
 */
export function jqPathExpressionProblem(expression: string): string | undefined {
  try {
    jq.compile(`path(${expression})`);
    return undefined;
  } catch (error) {
    // jqjs throws its parse errors as strings.
    const message = error instanceof Error ? error.message : String(error);
    return `jq cannot compile ${JSON.stringify(expression)}: ${message}`;
  }
}

/** An RFC 6901 JSON pointer as Argo CD's `jsonPointers` take it: `/spec/replicas`, `~1` for '/'. */
export function jsonPointerProblem(pointer: string): string | undefined {
  if (!pointer.startsWith('/'))
    return `'${pointer}' is not a JSON pointer: start it with '/', e.g. /spec/replicas`;
  if (/~(?![01])/.test(pointer))
    return `'${pointer}' is not a JSON pointer: '~' must be written ~0, and '/' inside a key ~1`;
  return undefined;
}
