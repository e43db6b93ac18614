import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {openCase} from '../../src/store/open-case.js'
import {SORT_CACHE_KIB, withSortCache} from '../../src/store/session.js'
import {tempDir} from '../helpers/cli.js'

// The sorts over a whole case (provenance's record order, scope's sessions served, a
// registry's staging) run with a small page cache and without sorter helper threads, whose
// runs would each hold memory beside the main thread's; the case's own settings come back
// after, also when the sort fails.
describe('withSortCache', () => {
  it('sorts with a small cache and no helper threads, and puts the case settings back', () => {
    const db = openCase(join(tempDir(), 'sort.db'), {create: true})
    try {
      db.pragma('threads = 2')
      db.pragma('cache_size = -16000')
      const inside = withSortCache(db, () => [db.pragma('threads', {simple: true}), db.pragma('cache_size', {simple: true})])
      expect(inside).toEqual([0, -SORT_CACHE_KIB])
      expect(db.pragma('threads', {simple: true})).toBe(2)
      expect(db.pragma('cache_size', {simple: true})).toBe(-16000)
      expect(() => withSortCache(db, () => { throw new Error('sort failed') })).toThrow('sort failed')
      expect(db.pragma('threads', {simple: true})).toBe(2)
      expect(db.pragma('cache_size', {simple: true})).toBe(-16000)
    } finally {
      db.close()
    }
  })
})
