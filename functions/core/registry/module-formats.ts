/**
 * Format checks for private module credentials (`moduleSources`, `registries`), worded like
 * formats.ts: each returns the problem as a sentence, or undefined when the value is fine. Problems
 * may name a host (public) but never a key or token.
 */

/** A DNS label: letters (any script: IDNs are punycoded at scan time), digits and inner hyphens. */
const LABEL = '[\\p{Ll}\\p{Lo}\\p{N}](?:[\\p{Ll}\\p{Lo}\\p{N}-]{0,61}[\\p{Ll}\\p{Lo}\\p{N}])?';
const HOST = new RegExp(`^${LABEL}(?:\\.${LABEL})*(?::(\\d{1,5}))?$`, 'u');

/**
 * The host a credential is for, as git and Terraform name it: `git.example.com`, or with a port,
 * `git.example.com:8443`. Credentials are scoped to exactly this host, so a URL, a path or a user
 * name here would either never match or widen the scope.
 */
export function moduleHostProblem(host: string): string | undefined {
  if (host.includes('://'))
    return `'${host}' is a URL: give the host name only, e.g. git.example.com (credentials are sent to this host only)`;
  if (host.includes('@'))
    return `must be a host name without a user name (git's user name goes in https.username)`;
  if (host.includes('/')) return `'${host}' has a path: give the host name only, e.g. git.example.com`;
  if (host !== host.toLowerCase()) return `'${host}' must be lower case, as git and Terraform compare hosts`;
  const match = HOST.exec(host);
  if (!match) return `'${host}' is not a host name such as git.example.com or git.example.com:8443`;
  const port = match[1] === undefined ? undefined : Number(match[1]);
  if (port !== undefined && (port < 1 || port > 65_535)) return `port ${port} is not a TCP port (1-65535)`;
  return undefined;
}

/** A user name git sends with the token: the credential protocol is line-based. */
export function gitUsernameProblem(username: string): string | undefined {
  if (/[\s:@/]/.test(username)) return `must be a user name without spaces, ':', '@' or '/'`;
  return undefined;
}

const KEY_TYPE = /^(ssh-[a-z0-9-]+|ecdsa-sha2-[a-z0-9-]+|sk-[a-z0-9@.-]+)$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The entries of known_hosts text: comments and blank lines left out, a marker (`@cert-authority`) split off. */
function knownHostsEntries(text: string): Array<{ hosts: string; type: string; key: string } | undefined> {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const fields = line.split(/\s+/);
      if (fields[0]?.startsWith('@')) fields.shift();
      const [hosts, type, key] = fields;
      if (!hosts || !type || !key || !KEY_TYPE.test(type) || !BASE64.test(key)) return undefined;
      return { hosts, type, key };
    });
}

/**
 * known_hosts lines as `ssh-keyscan <host>` prints them (verify them out of band). Host keys are
 * public, so they may sit in the registry; what must not is a private key pasted by mistake.
 */
export function knownHostsProblem(text: string): string | undefined {
  if (text.includes('PRIVATE KEY'))
    return "holds a private key: knownHosts takes the host's public keys (known_hosts lines); the private key goes in privateKey";
  const entries = knownHostsEntries(text);
  if (entries.length === 0)
    return "has no known_hosts line: add the host's keys (`ssh-keyscan <host>`, checked out of band)";
  const bad = entries.indexOf(undefined);
  if (bad >= 0)
    return `entry ${bad + 1} is not a known_hosts line ('<host> <key type> <base64 key>', as ssh-keyscan prints it)`;
  return undefined;
}

/**
 * Whether known_hosts text has a line for the host (`git.example.com`, `[git.example.com]:2222`
 * for a port, or a hashed `|1|...` entry, which cannot be read back and is trusted to match).
 */
export function knownHostsCoverHost(text: string, host: string): boolean {
  const [name, port] = host.split(':');
  const wanted = port === undefined || port === '22' ? name : `[${name}]:${port}`;
  return knownHostsEntries(text).some((entry) =>
    entry === undefined
      ? false
      : entry.hosts.startsWith('|1|') || entry.hosts.split(',').some((pattern) => pattern === wanted),
  );
}
