import { vi } from 'vitest';

/**
 * A command's action run in process (`(run) => someAction(run, …)`): what it wrote to stdout and the
 * exit code it set through `run` (undefined when it threw or set none).
 */
export async function actionOutput(
  action: (run: (code: number) => void) => Promise<void>,
): Promise<{ out: string; code: number | undefined }> {
  let out = '';
  let code: number | undefined;
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  try {
    await action((exit) => {
      code = exit;
    });
  } finally {
    write.mockRestore();
  }
  return { out, code };
}
