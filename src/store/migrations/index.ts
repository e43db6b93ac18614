import type {Database} from 'better-sqlite3'
import {up as caseSchema} from './001-case.js'
import {up as logFormats} from './002-log-formats.js'
import {up as recordedFacts} from './003-recorded-facts.js'
import {up as referenceEvidence} from './004-reference-evidence.js'
import {up as originalEvidence} from './005-original-evidence.js'
import {up as fieldCounts} from './006-field-counts.js'
import {up as undecidedAtRisk} from './007-undecided-at-risk.js'
import {up as boilerplateResponses} from './008-boilerplate-responses.js'
import {up as unreadSources} from './009-unread-sources.js'
import {up as crossBorderUnintelligible} from './010-cross-border-unintelligible.js'
import {up as provenanceSourceOrder} from './011-provenance-source-order.js'
import {up as sightingRules} from './012-sighting-rules.js'
import {up as possibleSourcesNextUpdate} from './013-possible-sources-next-update.js'
import {up as duplicateCompanions} from './014-duplicate-companions.js'
import {up as replayUnjudged} from './015-replay-unjudged.js'
import {up as ingestClaim} from './016-ingest-claim.js'
import {up as replayAnswersApart} from './017-replay-answers-apart.js'
import {up as grownVersions} from './018-grown-versions.js'
import {up as notificationController} from './019-notification-controller.js'
import {up as notComparableResponses} from './020-not-comparable-responses.js'
import {up as filesBySize} from './021-files-by-size.js'
import {up as tenantLabels} from './022-tenant-labels.js'
import {up as notificationScopes} from './023-notification-scopes.js'
import {up as recipientKind} from './024-recipient-kind.js'
import {up as notificationScopeBounds} from './025-notification-scope-bounds.js'

export interface Migration {
  version: number
  name: string
  up: (db: Database) => void
  /** Work that grows with the case (an index rebuilt over every record), said before it starts. */
  rebuilds?: string
}

// Append-only: a released migration is never edited, only followed by a new one (005, ...).
export const MIGRATIONS: readonly Migration[] = [
  {version: 1, name: 'case', up: caseSchema},
  {version: 2, name: 'log-formats', up: logFormats},
  {version: 3, name: 'recorded-facts', up: recordedFacts},
  {version: 4, name: 'reference-evidence', up: referenceEvidence},
  {version: 5, name: 'original-evidence', up: originalEvidence},
  {version: 6, name: 'field-counts', up: fieldCounts, rebuilds: 'two record indexes'},
  {version: 7, name: 'undecided-at-risk', up: undecidedAtRisk},
  {version: 8, name: 'boilerplate-responses', up: boilerplateResponses},
  {version: 9, name: 'unread-sources', up: unreadSources},
  {version: 10, name: 'cross-border-unintelligible', up: crossBorderUnintelligible},
  {version: 11, name: 'provenance-source-order', up: provenanceSourceOrder},
  {version: 12, name: 'sighting-rules', up: sightingRules},
  {version: 13, name: 'possible-sources-next-update', up: possibleSourcesNextUpdate},
  {version: 14, name: 'duplicate-companions', up: duplicateCompanions},
  {version: 15, name: 'replay-unjudged', up: replayUnjudged},
  {version: 16, name: 'ingest-claim', up: ingestClaim},
  {version: 17, name: 'replay-answers-apart', up: replayAnswersApart},
  {version: 18, name: 'grown-versions', up: grownVersions},
  {version: 19, name: 'notification-controller', up: notificationController},
  {version: 20, name: 'not-comparable-responses', up: notComparableResponses},
  {version: 21, name: 'files-by-size', up: filesBySize},
  {version: 22, name: 'tenant-labels', up: tenantLabels},
  {version: 23, name: 'notification-scopes', up: notificationScopes},
  {version: 24, name: 'recipient-kind', up: recipientKind},
  {version: 25, name: 'notification-scope-bounds', up: notificationScopeBounds},
]
