import {Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../cli/base-command.js'
import {renderClock} from '../cli/render-clock.js'
import {loadCaseClock} from '../notify/case-clock.js'
import {clockJson, computeClock, type ClockJson, type ClockResult} from '../notify/clock.js'
import {UsageError} from '../errors.js'
import {checkTimeZone, parseInstant, systemTimeZone} from '../notify/time.js'

export default class Clock extends BaseCommand {
  static override description =
    'The notification clock. A controller: Art. 33(1), deadline = awareness + 72 elapsed hours (never moved by weekends, holidays or daylight saving), shown in UTC and a local zone. A processor: Art. 33(2), one clock per controller in the exposure, against the contractual period (incident set --controller-deadline-hours) or "without undue delay". --json: the contract\'s deadline is always awareness + 72 elapsed hours; it adds `late` (notified, or still not notified, after the deadline the role has) and the role\'s own deadline as `duty_deadline` (null: none fixed), `duty_remaining_seconds`, `duty_status`, `basis`.'
  static override examples = [
    '<%= config.bin %> clock',
    '<%= config.bin %> clock --aware-at 2026-10-23T10:00:00+02:00 --now 2026-10-25T12:00:00+01:00 --json',
    '<%= config.bin %> clock --tz Europe/Dublin --watch',
  ]
  static override flags = {
    db: dbFlag,
    'aware-at': Flags.string({description: "Awareness time (ISO with zone); without it, the case incident's. No case needed with it.", helpValue: 'ISO'}),
    now: Flags.string({description: 'Evaluate at this moment instead of the current time (ISO with zone).', helpValue: 'ISO'}),
    tz: Flags.string({description: 'Zone for the local-time rendering (IANA name; default the system zone); the console only: --json is UTC.', helpValue: 'ZONE'}),
    watch: Flags.boolean({description: 'Redraw a live countdown every second until interrupted, or until the reader of its output is gone (console only: not with --json or --now).'}),
  }

  public async run(): Promise<ClockJson> {
    const {flags} = await this.parse(Clock)
    // Checked here rather than by oclif's `exclusive`, whose raw "--json=true cannot also be provided"
    // came first and hid what was wrong with the zone itself: the zone is judged first, then the pairing.
    // Only a --tz given is judged (exit 2): the system's zone is no flag, and one Intl cannot use is read as UTC.
    const tz = flags.tz === undefined ? systemTimeZone() : checkTimeZone(flags.tz)
    if (flags.tz !== undefined && this.jsonEnabled()) throw new UsageError('--tz cannot be used with --json: --tz sets the zone of the console\'s local times, and --json is always UTC (drop --tz)')
    // Checked here too, not by oclif's `exclusive`: its raw "--json=true cannot also be provided when using --watch" said neither why nor what to do.
    if (flags.watch && this.jsonEnabled()) throw new UsageError('--watch cannot be used with --json: --watch redraws a countdown on the console every second until interrupted, and --json prints one document once (drop --watch; run clock --json again for a later reading)')
    if (flags.watch && flags.now !== undefined) throw new UsageError('--watch cannot be used with --now: --watch counts down live from the current time, and --now evaluates the clock at one fixed moment (drop one of them)')
    const nowOf = (): Date => (flags.now ? parseInstant(flags.now, '--now') : new Date())
    let evaluate: (now: Date) => ClockResult
    if (flags['aware-at']) {
      const awareAt = parseInstant(flags['aware-at'], '--aware-at')
      // No case: the controller's 72 hours of Art. 33(1), said as its basis as a case's clock says it.
      evaluate = (now) => ({...computeClock(awareAt, now), basis: 'art33(1)'})
    } else {
      const db = this.openCase(flags.db, {readonly: false})
      evaluate = (now) => loadCaseClock(db, now)
    }
    let now = nowOf()
    let result = evaluate(now)
    // GDPR Art. 33(1): the 72 hours run from awareness. Before it there is no clock: a time
    // remaining counted from such a moment would overstate the time left, so it is refused.
    if (now.getTime() < Date.parse(result.aware_at)) {
      const moment = flags.now === undefined ? `the current time ${now.toISOString()}` : `--now ${now.toISOString()}`
      const awareness = flags['aware-at'] === undefined ? "the incident's recorded awareness time" : '--aware-at'
      throw new UsageError(`clock: ${moment} is before ${awareness} ${result.aware_at}: the 72-hour clock runs from awareness, so there is no time remaining to show before it (give a --now at or after awareness${flags['aware-at'] === undefined ? ', or correct the awareness time with incident amend-awareness' : ''})`, 'E_BEFORE_AWARENESS')
    }
    if (flags.watch) {
      const readerGone = await this.watch(() => renderClock(evaluate(nowOf()), tz))
      // Nobody is left to read a last reading: the watch ends as a one-shot command on a closed pipe does (exit 0).
      if (readerGone) return clockJson(result, now)
      now = nowOf()
      result = evaluate(now)
    }
    if (!this.jsonEnabled()) this.log(renderClock(result, tz))
    return clockJson(result, now)
  }

  /**
   * Redraws in place on a TTY (a fresh line per tick otherwise) until SIGINT/SIGTERM, or until
   * stdout's reader is gone (`| head -1`: EPIPE, or the stream closed); true in that last case.
   * bin/run.js swallows EPIPE so that a one-shot command exits with its own code, which left
   * this loop redrawing into the closed pipe for ever.
   */
  private async watch(draw: () => string): Promise<boolean> {
    const tty = process.stdout.isTTY
    let readerGone = false
    await new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined
      const stop = (): void => {
        clearInterval(timer)
        process.off('SIGINT', stop)
        process.off('SIGTERM', stop)
        process.stdout.off('error', onError)
        process.stdout.off('close', onClose)
        resolve()
      }
      const onError = (error: NodeJS.ErrnoException): void => {
        if (error?.code !== 'EPIPE') return
        readerGone = true
        stop()
      }
      const onClose = (): void => {
        readerGone = true
        stop()
      }
      const tick = (): void => {
        if (process.stdout.destroyed || process.stdout.writableEnded) return onClose()
        const text = draw()
        process.stdout.write(tty ? `\u001b[H\u001b[2J${text}\n` : `${text}\n\n`)
      }
      process.stdout.on('error', onError)
      process.stdout.on('close', onClose)
      process.once('SIGINT', stop)
      process.once('SIGTERM', stop)
      tick()
      if (!readerGone) timer = setInterval(tick, 1000)
    })
    return readerGone
  }
}
