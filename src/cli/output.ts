/** Where a command writes: stdout lines, stderr lines, and whether stderr is a terminal (for progress redraws). */
export interface CliOutput {
  /** One line to stdout (the newline is added). */
  out(line: string): void;
  /** One line to stderr (the newline is added). */
  err(line: string): void;
  /** Whether stderr is a terminal: progress is then redrawn in place on one line. */
  readonly isTTY: boolean;
  /** Writes text to stderr as is, without a newline (in-place redraws on a TTY); `err` is used when absent. */
  errRaw?(text: string): void;
}

/** An output that keeps every line, for tests and for callers that format the result themselves. */
export interface CapturedOutput extends CliOutput {
  readonly stdout: string[];
  readonly stderr: string[];
}

export function captureOutput(isTTY = false): CapturedOutput {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    isTTY,
    out: (line) => void stdout.push(line),
    err: (line) => void stderr.push(line),
    errRaw: (text) => void stderr.push(text),
  };
}
