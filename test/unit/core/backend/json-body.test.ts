import { describe, expect, it } from 'vitest';
import { parseJsonObject } from '../../../../functions/core/backend/json-body.js';

/** How a state or lock body that is not UTF-8 JSON reads once S3's bytes are decoded as UTF-8. */
const asUtf8 = (bytes: Uint8Array) => new TextDecoder('utf-8').decode(bytes);
const utf16le = (text: string, bom: boolean) =>
  asUtf8(new Uint8Array([...(bom ? [0xff, 0xfe] : []), ...Buffer.from(text, 'utf16le')]));
const utf16be = (text: string) => asUtf8(Buffer.from(text, 'utf16le').swap16());

describe('a body that is not JSON says why when its encoding shows it, never quoting it', () => {
  it.each([
    ['UTF-16 LE with its BOM', utf16le('{"version":4,"password":"CANARYbody"}', true), 'is UTF-16 text'],
    ['UTF-16 LE without a BOM', utf16le('{"version":4,"password":"CANARYbody"}', false), 'is UTF-16 text'],
    ['UTF-16 BE', utf16be('{"version":4,"password":"CANARYbody"}'), 'is UTF-16 text'],
    ['UTF-8 with a BOM', '\uFEFF{"version":4,"password":"CANARYbody"}', 'starts with a byte order mark'],
    ['plain garbage', 'password=CANARYbody', 'is not JSON (19 characters)'],
  ])('%s', (_name, body, reason) => {
    const parsed = parseJsonObject(body, 'the state');
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.reason).toContain(`the state ${reason}`);
    expect(parsed.reason).not.toContain('CANARY');
  });
});
