import { describe, expect, it } from 'vitest';
import { maxSeverity, shiftSeverity } from '../../../functions/core/findings/model.js';

describe('severity arithmetic', () => {
  it('picks the more severe of two', () => {
    expect(maxSeverity('low', 'high')).toBe('high');
    expect(maxSeverity('critical', 'medium')).toBe('critical');
  });
  it('shifts within critical..low and leaves info alone', () => {
    expect(shiftSeverity('medium', 1)).toBe('high');
    expect(shiftSeverity('critical', 1)).toBe('critical');
    expect(shiftSeverity('low', -1)).toBe('low');
    expect(shiftSeverity('high', -1)).toBe('medium');
    expect(shiftSeverity('info', 2)).toBe('info');
  });
});
