import {describe, expect, it} from 'vitest'
import {ownLines} from '../../src/ingest/ingest-file.js'

// A longer version of a stored file reads the lines that do not end, newline included, within the
// stored version's bytes: a unit of whole lines is cut at the first such line, with its line number.

const unit = (text: string, offset = 0, firstLineNo = 1) => ({bytes: Buffer.from(text), offset, firstLineNo})
const shown = (u: ReturnType<typeof ownLines>) => (u === null ? null : {text: u.bytes.toString(), offset: u.offset, firstLineNo: u.firstLineNo})

describe('ownLines', () => {
  it.each([
    // [unit text, unit offset, its first line, readFrom, what is read]
    ['a\nbb\nccc\n', 0, 1, 5, {text: 'ccc\n', offset: 5, firstLineNo: 3}],
    ['a\nbb\nccc\n', 0, 1, 9, null],
    ['a\nbb\nccc\n', 0, 1, 12, null],
    // The stored version ended inside line 3 (cut short): line 3 is read again whole.
    ['a\nbb\nccc\n', 0, 1, 7, {text: 'ccc\n', offset: 5, firstLineNo: 3}],
    ['a\nbb\nccc\n', 0, 1, 1, {text: 'a\nbb\nccc\n', offset: 0, firstLineNo: 1}],
    // A unit further in the file: offsets and line numbers are the file's.
    ['x\nyy\n', 100, 40, 102, {text: 'yy\n', offset: 102, firstLineNo: 41}],
    ['x\nyy\n', 100, 40, 100, {text: 'x\nyy\n', offset: 100, firstLineNo: 40}],
    ['x\nyy\n', 100, 40, 50, {text: 'x\nyy\n', offset: 100, firstLineNo: 40}],
  ] as const)('%j at %i (line %i), read from %i', (text, offset, line, readFrom, expected) => {
    expect(shown(ownLines(unit(text, offset, line), readFrom))).toEqual(expected)
  })
})

describe('ownLines, the stored last line read as a record (lastLineRead: its offset)', () => {
  it.each([
    // The stored version ended after line 3's '}' (no newline yet), and line 3 was a record: skipped.
    ['a\nbb\nccc\ndd\n', 8, 5, {text: 'dd\n', offset: 9, firstLineNo: 4}],
    // ... its CRLF cut between \r and \n.
    ['a\nbb\nccc\r\ndd\n', 9, 5, {text: 'dd\n', offset: 10, firstLineNo: 4}],
    // The line went on with more than its line end: it is read again whole.
    ['a\nbb\ncccx\ndd\n', 8, 5, {text: 'cccx\ndd\n', offset: 5, firstLineNo: 3}],
    // The record read was an earlier line (the last one was quarantined): read again whole.
    ['a\nbb\nccc\ndd\n', 8, 2, {text: 'ccc\ndd\n', offset: 5, firstLineNo: 3}],
    // Nothing after it yet in this unit.
    ['a\nbb\nccc\n', 8, 5, null],
  ] as const)('%j read from %i, last line read at %i', (text, readFrom, lastRead, expected) => {
    expect(shown(ownLines(unit(text), readFrom, lastRead))).toEqual(expected)
  })
})
