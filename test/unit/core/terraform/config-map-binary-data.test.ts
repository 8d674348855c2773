import { describe, expect, it } from 'vitest';
import { evaluatePlan } from '../../../../functions/core/terraform/index.js';
import { context, entry, hashSensitive, plan } from '../../../helpers/plan-builders.js';

/**
 * `kubernetes_config_map(_v1).binary_data` (hashicorp/kubernetes provider: a map of base64 values)
 * is bytes the value rules cannot read, often a keystore or a certificate with its key: a drift
 * finding printed it whole. It is shown by hash, as cluster diffs show a ConfigMap's binaryData.
 */
// A PKCS#12 keystore's first bytes in base64, as `filebase64("keystore.p12")` gives them.
const keystore = 'MIIKZgIBAzCCCiAGCSqGSIb3DQEHAaCCChEEggoNMIIKCTCCBXUGCSqGSIb3DQEHAaCC';

function configMap(binaryData: Record<string, string>) {
  return {
    metadata: [{ name: 'tls', namespace: 'shop', labels: {}, annotations: {} }],
    data: { 'log.level': 'info' },
    binary_data: binaryData,
    immutable: false,
  };
}

describe.each(['kubernetes_config_map', 'kubernetes_config_map_v1'])('%s binary_data', (type) => {
  it('is shown by hash; data stays readable', () => {
    const before = configMap({ 'keystore.p12': 'AAEC', 'old.bin': 'AwQF' });
    const after = {
      ...configMap({ 'keystore.p12': keystore, 'new.bin': keystore }),
      data: { 'log.level': 'debug' },
    };
    const result = evaluatePlan(plan({ drift: [entry(`${type}.tls`, { before, after })] }), {
      ...context(),
      hashSensitive,
    });
    expect(JSON.stringify(result)).not.toContain(keystore);
    const changes = result.findings[0]!.drift!.changes;
    const binary = changes.filter((change) => change.path.startsWith('binary_data'));
    // The attribute is one sensitive change, as a SecureString's value is.
    expect(binary.map((change) => [change.path, change.sensitive])).toEqual([['binary_data', true]]);
    expect(changes.find((change) => change.path === 'data["log.level"]')).toEqual({
      path: 'data["log.level"]',
      before: 'info',
      after: 'debug',
      sensitive: false,
    });
  });
});
