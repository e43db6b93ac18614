// The error family every layer throws. Commands never build exit codes themselves:
// the base command maps these (and oclif's own parse errors) to the contract's codes.
// No oclif import here: domain code throws these too.

export class CliError extends Error {
  /** What a `--json` caller needs beside the message (printed as error.details): e.g. every problem verify found. */
  details?: unknown

  constructor(
    message: string,
    readonly code: string = 'E_FAILED',
    readonly exit: number = 1,
  ) {
    super(message)
    this.name = new.target.name
  }

  withDetails(details: unknown): this {
    this.details = details
    return this
  }
}

/** Bad input: a file, a line, a value the user gave. One line, naming where. */
export class InputError extends CliError {
  constructor(message: string, code = 'E_INPUT') {
    super(message, code, 1)
  }
}

/** The case database or its evidence does not check out. */
export class IntegrityError extends CliError {
  constructor(message: string, code = 'E_INTEGRITY') {
    super(message, code, 1)
  }
}

/** Flag combinations oclif cannot express (exit 2, like oclif's own usage errors). */
export class UsageError extends CliError {
  constructor(message: string, code = 'E_USAGE') {
    super(message, code, 2)
  }
}

/** `--fail-on-leak` and contamination was found (contract: exit 3). */
export class GateTripped extends CliError {
  constructor(message: string, code = 'E_LEAK') {
    super(message, code, 3)
  }
}
