import { describe, expect, it } from 'vitest';
import { evaluatePlan } from '../../../../functions/core/terraform/index.js';
import { context, entry, hashSensitive, plan, stateResource } from '../../../helpers/plan-builders.js';

/**
 * A value known to be secret (a sensitive variable, a value masked in prior_state) that reappears
 * unmasked in an attribute with a plain name, but encoded: `input = jsonencode({key = var.token})`
 * writes the token escaped inside the JSON text (`"` as `\"`, and `&`, `<`, `>` as `\u0026`… as
 * Terraform's encoder does), `jsonencode(jsonencode(…))` escapes it twice, `base64encode(…)` hides
 * it in base64, `urlencode(…)` percent-encodes it in a URL or a connection string. The literal was
 * searched for only as written, so each of these was printed whole.
 */
const VARIABLE = 'Vk&<"CNRYVARLIT7q€>';
const PRIOR = 'Pw"CNRYPRIORLIT3z&';
const CORES = ['CNRYVARLIT7q', 'CNRYPRIORLIT3z'];

/** How Terraform's jsonencode writes a string: JSON, with `&`, `<` and `>` escaped as \u00XX. */
const jsonencode = (value: unknown) =>
  JSON.stringify(value).replace(/[&<>]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const asciiOnly = (text: string) =>
  text.replace(/[^ -~\t\n\r]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
/** How Terraform's urlencode (Go's url.QueryEscape) writes a string: only `-_.~` kept, space as `+`. */
const urlencode = (value: string) =>
  encodeURIComponent(value)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');

const ENCODINGS: Record<string, (secret: string) => string> = {
  'JSON string': (secret) => JSON.stringify({ key: secret }),
  jsonencode: (secret) => jsonencode({ key: secret }),
  'jsonencode twice': (secret) => jsonencode({ config: jsonencode({ key: secret }) }),
  'ASCII-only JSON': (secret) => asciiOnly(jsonencode({ key: secret })),
  'JSON in a shell script': (secret) => `#!/bin/sh\necho '${jsonencode({ key: secret })}' > /etc/app.json\n`,
  // The literal starts at each of the three offsets within a base64 group (0, 1 and 2 bytes before it).
  base64: (secret) => Buffer.from(`${secret}\n`).toString('base64'),
  'base64, 1 byte before': (secret) => Buffer.from(`K=${secret}\n`).toString('base64'),
  'base64, 2 bytes before': (secret) => Buffer.from(`KEY=${secret}\n`).toString('base64'),
  'base64 of jsonencode': (secret) => Buffer.from(jsonencode({ key: secret })).toString('base64'),
  base64url: (secret) => Buffer.from(`#!/bin/sh\nexport KEY='${secret}'\n`).toString('base64url'),
  'base64 wrapped at 76 columns': (secret) =>
    Buffer.from(`${'#'.repeat(70)}\nexport KEY='${secret}'\n`)
      .toString('base64')
      .replace(/.{76}/g, '$&\n'),
  // Percent-encoded: `urlencode(var.token)` in a query or a connection string, a path segment, a form.
  'urlencode in a query': (secret) => `https://hooks.example.com/notify?channel=ops&sig=${urlencode(secret)}`,
  'urlencode in a connection string': (secret) =>
    `Server=db;Database=app;Options=${urlencode(secret)};Encrypt=true`,
  'percent-encoded path segment': (secret) =>
    `https://api.example.com/v1/keys/${encodeURIComponent(secret)}/use`,
  'lower-case percent escapes': (secret) =>
    `https://hooks.example.com/notify?sig=${urlencode(secret).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase())}`,
};

function plantedPlan(encode: (secret: string) => string) {
  const changes = [VARIABLE, PRIOR].flatMap((secret, index) => [
    entry(`aws_cloudwatch_event_target.created${index}`, {
      actions: ['create'],
      after: { input: encode(secret), rule: 'nightly' },
    }),
    entry(`aws_cloudwatch_event_target.updated${index}`, {
      before: { input: 'none', rule: 'nightly' },
      after: { input: encode(secret), rule: 'nightly' },
    }),
  ]);
  return plan({
    changes,
    outputs: {
      config: { actions: ['create'], before: null, after: encode(VARIABLE), after_unknown: false },
    },
    variables: { app_key: { value: VARIABLE } },
    configuration: { root_module: { variables: { app_key: { sensitive: true } } } },
    prior: [stateResource('aws_db_instance.db', { password: PRIOR }, { password: true })],
  });
}

describe('secret literals encoded in plain attributes', () => {
  for (const [name, encode] of Object.entries(ENCODINGS)) {
    it(`are hashed when written as ${name}`, () => {
      const result = evaluatePlan(plantedPlan(encode), { ...context(), hashSensitive });
      const text = JSON.stringify(result.findings);
      for (const core of CORES) expect(text).not.toContain(core);
      // Still visible as changes: every planted attribute is reported, hashed.
      const inputs = result.findings.flatMap((finding) =>
        (finding.drift?.changes ?? []).filter((change) => change.path === 'input'),
      );
      expect(inputs).toHaveLength(4);
      for (const change of inputs) expect(change.sensitive).toBe(true);
    });
  }
});
