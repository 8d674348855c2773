/**
 * The nightly pipeline, in order. The local runner (`driftwatch scan`) executes exactly these
 * stages, and the deployed state machine is built from the same list (a test holds them equal).
 */
export const PIPELINE_STAGES = ['LoadRegistry', 'ScanTerraform', 'RecordFindings'] as const;
export type PipelineStage = (typeof PIPELINE_STAGES)[number];
