// The check lives in evidence/ (the gate, detection coverage and the drafts read it too).
export {grownOriginalLine, grownOriginals, type GrownOriginal} from '../evidence/grown-originals.js'
