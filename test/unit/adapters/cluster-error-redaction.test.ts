import { describe, expect, it } from 'vitest';
import { errorBodyMessage } from '../../../functions/adapters/http-failure.js';
import { ClusterSourceError } from '../../../functions/core/gitops/ports.js';
import { redactedExcerpt } from '../../../functions/core/redaction/secrets.js';

/**
 * Error text from Argo CD, the Kubernetes API or a proxy in front of them is shown briefly, and may
 * quote what it refused (an admission webhook echoing a value, a login page with a token). A cap
 * applied before redaction cut credentials in half and kept their start; redaction comes first, and
 * every ClusterSourceError redacts its reason whoever builds it.
 */
const SECRETS = [
  'postgres://admin:CANARYclerr-urlpass-123456@db.example.com:5432/app',
  'ghp_CANARYclerrAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  'password=CANARYclerr-hunter2-long',
];

describe('cluster error text is redacted before it is cut', () => {
  it.each(SECRETS)('a credential across the cap of a body, a JSON message and an excerpt: %s', (secret) => {
    for (const padding of [100, 110, 118, 280, 290]) {
      const text = `${'x'.repeat(padding)} ${secret} and more`;
      for (const shown of [
        errorBodyMessage(text, ['message']),
        errorBodyMessage(JSON.stringify({ message: text }), ['message']),
        redactedExcerpt(text, 120),
      ])
        expect(shown).not.toMatch(/CANARY|ghp_/);
    }
  });

  it("the request's own token is redacted before the cut too", () => {
    const token = 'CANARYclerrBearerToken0123456789';
    for (const padding of [280, 290, 295]) {
      const text = `${'x'.repeat(padding)} ${token}`;
      for (const shown of [
        errorBodyMessage(JSON.stringify({ message: text }), ['message'], [token]),
        errorBodyMessage(text, ['message'], [token]),
      ])
        expect(shown).not.toContain('CANARY');
    }
  });

  it('a ClusterSourceError redacts its reason, and the message equals it', () => {
    const error = new ClusterSourceError('unauthorized', `admission webhook denied: ${SECRETS[2]}`);
    expect(error.reason).toBe('admission webhook denied: password=(redacted)');
    expect(error.message).toBe(error.reason);
  });
});
