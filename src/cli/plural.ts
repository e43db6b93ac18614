// Counts in sentences live in util (documents use them too); the CLI's renderers import them here.
export {count} from '../util/plural.js'
