import fs from 'node:fs'
import path from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

describe('crosstalk clock / incident / notify record', () => {
  let dir: string
  let db: string
  beforeAll(() => {
    dir = tempDir()
    db = path.join(dir, 'case.db')
  })

  it('clock --aware-at needs no case and prints exactly the contract keys', async () => {
    const r = await run(['clock', '--aware-at', '2026-10-23T10:00:00+02:00', '--now', '2026-10-25T12:00:00+01:00', '--json', '--db', path.join(dir, 'none.db')])
    expect(r.code).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(out).toEqual({
      aware_at: '2026-10-23T08:00:00.000Z', deadline: '2026-10-26T08:00:00.000Z', remaining_seconds: 75600, status: 'due_soon', late: false,
      duty_deadline: '2026-10-26T08:00:00.000Z', duty_remaining_seconds: 75600, duty_status: 'due_soon', basis: 'art33(1)',
    })
    expect(Object.keys(out).slice(0, 4)).toEqual(['aware_at', 'deadline', 'remaining_seconds', 'status'])
    expect(fs.existsSync(path.join(dir, 'none.db'))).toBe(false)
  })

  it('clock without an incident or --aware-at fails with a clear message', async () => {
    await run(['incident', 'show', '--db', db])
    const r = await run(['clock', '--json', '--db', path.join(dir, 'none.db')])
    expect(r.code).toBe(1)
    expect(JSON.parse(r.stdout).error.message).toMatch(/no case database|no incident/)
  })

  it('opens an incident, shows it, and the clock reads it', async () => {
    const open = await run(['incident', 'open', '--db', db, '--title', 'KV leak', '--aware-at', '2026-10-23T10:00:00+02:00', '--role', 'controller', '--dpo-contact', 'dpo@provider.example', '--json'])
    expect(open.code, open.stderr).toBe(0)
    expect(JSON.parse(open.stdout)).toMatchObject({title: 'KV leak', role: 'controller', aware_at: '2026-10-23T08:00:00.000Z', dpo_contact: 'dpo@provider.example', controller_name: null})
    expect(fs.statSync(db).mode & 0o777).toBe(0o600)
    const again = await run(['incident', 'open', '--db', db, '--title', 'x', '--aware-at', '2026-10-23T10:00:00Z', '--role', 'controller'])
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/already has an incident/)
    const clock = await run(['clock', '--db', db, '--now', '2026-10-27T00:00:00Z', '--json'])
    expect(JSON.parse(clock.stdout)).toMatchObject({deadline: '2026-10-26T08:00:00.000Z', status: 'overdue', remaining_seconds: -16 * 3600, late: true})
    const human = await run(['clock', '--db', db, '--now', '2026-10-25T12:00:00+01:00', '--tz', 'Europe/Dublin'])
    expect(human.stdout).toMatch(/DUE SOON/)
    expect(human.stdout).toMatch(/2026-10-26 08:00:00 GMT \(Europe\/Dublin\)|2026-10-26 08:00:00 GMT\+0? ?\(Europe\/Dublin\)/)
  })

  it('changes aware_at only with a reason, and keeps the amendment', async () => {
    const noReason = await run(['incident', 'set', '--db', db, '--aware-at', '2026-10-23T09:00:00+02:00'])
    expect(noReason.code).toBe(2)
    expect(noReason.stderr).toMatch(/reason/)
    const set = await run(['incident', 'set', '--db', db, '--controller-name', 'Acme', '--json'])
    expect(JSON.parse(set.stdout)).toMatchObject({controller_name: 'Acme', aware_at: '2026-10-23T08:00:00.000Z'})
    const amend = await run(['incident', 'amend-awareness', '--db', db, '--aware-at', '2026-10-23T09:00:00+02:00', '--reason', 'pager log shows confirmation at 09:00', '--json'])
    expect(amend.code, amend.stderr).toBe(0)
    expect(JSON.parse(amend.stdout).aware_at).toBe('2026-10-23T07:00:00.000Z')
    const show = JSON.parse((await run(['incident', 'show', '--db', db, '--json'])).stdout)
    expect(show.amendments).toHaveLength(1)
    expect(show.amendments[0]).toMatchObject({old_value: '2026-10-23T08:00:00.000Z', new_value: '2026-10-23T07:00:00.000Z', reason: 'pager log shows confirmation at 09:00'})
  })

  it('changes the role only with a reason, keeps the change apart from the awareness amendments, and the clock follows it', async () => {
    const noReason = await run(['incident', 'set', '--db', db, '--role', 'processor'])
    expect(noReason.code).toBe(2)
    expect(noReason.stderr).toMatch(/--role changes the duty and its deadline: give --reason/)
    const same = await run(['incident', 'set', '--db', db, '--role', 'controller', '--reason', 'no change'])
    expect(same.code).toBe(1)
    expect(same.stderr).toMatch(/already controller/)
    const unchanged = JSON.parse((await run(['report', 'register', '--db', db, '--allow-incomplete', '--format', 'json'])).stdout)
    expect(unchanged.role_changes).toBeNull()
    expect((await run(['report', 'register', '--db', db, '--allow-incomplete'])).stdout).not.toMatch(/Role changes/)
    const role = await run(['incident', 'set', '--db', db, '--role', 'processor', '--reason', 'we process these conversations for our API customers', '--amended-by', 'DPO', '--json'])
    expect(role.code, role.stderr).toBe(0)
    expect(JSON.parse(role.stdout)).toMatchObject({role: 'processor'})
    const show = JSON.parse((await run(['incident', 'show', '--db', db, '--json'])).stdout)
    expect(show.amendments.map((a: {field: string}) => a.field)).toEqual(['aware_at'])
    expect(show.role_changes).toEqual([expect.objectContaining({field: 'role', old_value: 'controller', new_value: 'processor', reason: 'we process these conversations for our API customers', amended_by: 'DPO'})])
    const clock = JSON.parse((await run(['clock', '--db', db, '--now', '2026-10-24T00:00:00Z', '--json'])).stdout)
    expect(clock).toMatchObject({basis: 'art33(2)-without-undue-delay', duty_deadline: null})
    const verify = await run(['verify', '--db', db])
    expect(verify.code, verify.stdout + verify.stderr).toBe(0)
    const back = await run(['incident', 'set', '--db', db, '--role', 'controller', '--reason', 'back to the record we started with'])
    expect(back.code, back.stderr).toBe(0)
    // The register (Art. 33(5)) lists each change with its reason, in the order made, in every form.
    const entry = JSON.parse((await run(['report', 'register', '--db', db, '--allow-incomplete', '--format', 'json'])).stdout)
    expect(entry.role_changes).toMatch(/from controller to processor, because we process these conversations for our API customers \(by DPO\).*from processor to controller, because back to the record we started with$/)
    expect(entry.statements.filter((st: {section: string}) => st.section === 'role')).toHaveLength(2)
    const md = (await run(['report', 'register', '--db', db, '--allow-incomplete'])).stdout
    expect(md).toMatch(/^\| Role changes \| .*from controller to processor.*\|$/m)
    const fr = (await run(['report', 'register', '--db', db, '--allow-incomplete', '--lang', 'fr'])).stdout
    expect(fr).toMatch(/^\| Changements de rôle \| .*de responsable de traitement à sous-traitant, motif : we process/m)
    const csv = (await run(['report', 'register', '--db', db, '--allow-incomplete', '--format', 'csv'])).stdout.split('\r\n')
    expect(csv[0]!.split(',').slice(-6)).toEqual(['role_changes', 'delay_reasons', 'controllers_known', 'finalised_with_open_items', 'data_subjects_either_side', 'controllers_unknown_because'])
  })

  it('notify record stores the SHA-256 of the file sent and stops the clock', async () => {
    const file = path.join(dir, 'sent.pdf')
    fs.writeFileSync(file, 'hello')
    const r = await run(['notify', 'record', '--db', db, '--phase', 'initial', '--at', '2026-10-24T10:00:00Z', '--reference', 'REF-1', '--file', file, '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({phase: 'initial', recipient: 'authority', file_sha256: '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824'})
    const clock = JSON.parse((await run(['clock', '--db', db, '--now', '2026-10-30T00:00:00Z', '--json'])).stdout)
    expect(clock.status).toBe('notified')
  })
})
