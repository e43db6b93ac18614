import {Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../cli/base-command.js'
import {renderClock} from '../cli/render-clock.js'
import {computeClock, type ClockResult} from '../notify/clock.js'
import {requireIncident} from '../notify/incident.js'
import {firstInitialNotification, listNotifications} from '../notify/notifications.js'
import {checkTimeZone, parseInstant, systemTimeZone} from '../notify/time.js'

export default class Clock extends BaseCommand {
  static override description =
    'The Art. 33(1) clock: deadline = awareness + 72 elapsed hours (never moved by weekends, holidays or daylight saving), shown in UTC and a local zone.'
  static override examples = [
    '<%= config.bin %> clock',
    '<%= config.bin %> clock --aware-at 2026-10-23T10:00:00+02:00 --now 2026-10-25T12:00:00+01:00 --json',
    '<%= config.bin %> clock --tz Europe/Dublin --watch',
  ]
  static override flags = {
    db: dbFlag,
    'aware-at': Flags.string({description: "Awareness time (ISO with zone); without it, the case incident's. No case needed with it.", helpValue: 'ISO'}),
    now: Flags.string({description: 'Evaluate at this moment instead of the current time (ISO with zone).', helpValue: 'ISO'}),
    tz: Flags.string({description: 'Zone for the local-time rendering (IANA name; default the system zone).', helpValue: 'ZONE'}),
    watch: Flags.boolean({description: 'Redraw a live countdown every second until interrupted.', exclusive: ['json', 'now']}),
  }

  public async run(): Promise<ClockResult> {
    const {flags} = await this.parse(Clock)
    const tz = checkTimeZone(flags.tz ?? systemTimeZone())
    let awareAt: Date
    let notifiedAt: Date | null = null
    if (flags['aware-at']) {
      awareAt = parseInstant(flags['aware-at'], '--aware-at')
    } else {
      const db = this.openCase(flags.db, {readonly: false})
      const incident = requireIncident(db)
      awareAt = new Date(incident.aware_at)
      const first = firstInitialNotification(listNotifications(db), incident.role)
      notifiedAt = first ? new Date(first.at) : null
    }
    const evaluate = (): ClockResult => computeClock(awareAt, flags.now ? parseInstant(flags.now, '--now') : new Date(), notifiedAt)
    if (flags.watch) {
      await this.watch(() => renderClock(evaluate(), tz))
    }
    const result = evaluate()
    if (!this.jsonEnabled()) this.log(renderClock(result, tz))
    return result
  }

  /** Redraws in place on a TTY (a fresh line per tick otherwise) until SIGINT/SIGTERM. */
  private async watch(draw: () => string): Promise<void> {
    const tty = process.stdout.isTTY
    await new Promise<void>((resolve) => {
      const tick = (): void => {
        const text = draw()
        process.stdout.write(tty ? `\u001b[H\u001b[2J${text}\n` : `${text}\n\n`)
      }
      tick()
      const timer = setInterval(tick, 1000)
      const stop = (): void => {
        clearInterval(timer)
        resolve()
      }
      process.once('SIGINT', stop)
      process.once('SIGTERM', stop)
    })
  }
}
