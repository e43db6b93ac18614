// Words and shared boilerplate for the synthetic incident. Function words are drawn often and
// content words evenly, which reads like (meaningless) prose and makes any 12-word run of
// generated text unique in practice, so a repeated run is evidence of a leak, not chance.

export const FUNCTION_WORDS = (
  'the the the of of and and to to a a in in is that for it as with was on be by at this are ' +
  'from or an which but not have has had were their they we our you your its can will would should ' +
  'could may might must also then than there these those when while where after before because ' +
  'about into over under between through during without within each every some any all more most ' +
  'other such only both either same so very just well again still already once here now'
).split(' ')

export const CONTENT_WORDS = (
  'account address agreement analysis answer appointment approval archive article assessment asset ' +
  'audit balance bank batch benefit bill board booking branch budget building calendar campaign ' +
  'candidate capacity card care carrier case catalogue category certificate change channel chapter ' +
  'charge check claim client clinic code colleague comment committee company complaint component ' +
  'condition conference contract contact copy cost council country course coverage credit customer ' +
  'dashboard data date deadline decision delivery department deposit design detail device diagnosis ' +
  'discount document draft driver employee energy engine entry estimate event evidence exam exception ' +
  'expense experience export facility factor family feature fee field figure file finance flight ' +
  'folder forecast form freight fund garden gateway goal grant guide hardware health history holiday ' +
  'hospital hotel household incident income index industry insurance interest interview inventory ' +
  'invoice issue item journey kitchen label landlord language lawyer lease ledger lesson letter level ' +
  'licence limit loan location machine manager manual margin market meeting member memo message ' +
  'method metric migration milestone mortgage network notice number office order outline owner ' +
  'package page panel parcel partner passenger password patient payment payroll pension percentage ' +
  'permit pharmacy phase picture plan platform policy portfolio position premium prescription price ' +
  'priority procedure process product profile program project property proposal provider purchase ' +
  'quarter query question quote rate receipt record refund region register release rent report ' +
  'request requirement reservation resident resource result review risk room route salary sample ' +
  'schedule school screen section sector server service session settlement shipment signature site ' +
  'software source specification staff statement status step stock storage strategy student study ' +
  'subscription summary supplier supply survey system table target task tax teacher team template ' +
  'tenant term test ticket timeline token total tour training transaction transfer treatment trial ' +
  'trip upgrade user utility vehicle vendor version visit voucher warehouse warranty website window ' +
  'workflow workshop year ' +
  'accept adjust allocate analyse apply approve arrange assign attach book calculate cancel capture ' +
  'clarify collect compare complete confirm consider contact convert correct create deliver describe ' +
  'determine develop discuss draft enable ensure estimate evaluate explain export extend file fill ' +
  'finalise follow forward handle identify include increase inform install introduce investigate ' +
  'keep list maintain manage measure merge migrate monitor move notify obtain open organise outline ' +
  'pay prepare present prevent process provide publish reach receive recommend reconcile record ' +
  'reduce refer register reject remind remove renew replace report request require reschedule ' +
  'resolve respond restore return review revise schedule select send settle share sign simplify ' +
  'sort submit suggest summarise support suspend track transfer translate update upload validate ' +
  'verify withdraw write ' +
  'accurate active additional annual available basic brief careful central clear common complex ' +
  'current daily detailed different direct early effective electronic entire essential existing ' +
  'external final financial formal former full general global gradual helpful important initial ' +
  'internal key large late legal local long main major manual medical minor monthly national ' +
  'necessary new next normal official open original other overall partial personal physical ' +
  'possible potential practical previous primary private public quarterly quick recent regional ' +
  'regular relevant remote reliable safe secure senior separate serious short significant similar ' +
  'simple single small special specific standard strong suitable technical temporary total typical ' +
  'urgent usual valid various weekly written ' +
  'Amsterdam Barcelona Berlin Brussels Copenhagen Dublin Geneva Hamburg Helsinki Lisbon Lyon Madrid ' +
  'Milan Munich Oslo Paris Porto Prague Rotterdam Stockholm Vienna Warsaw Zurich ' +
  'Anna Bruno Carla Daniel Elena Felix Greta Hugo Ines Jonas Klara Lukas Marta Nils Olga Paul ' +
  'Rosa Stefan Tomas Ute Viktor Wanda ' +
  'Monday Tuesday Wednesday Thursday Friday January February March April June July August ' +
  'September October November December'
).split(' ')

export const SYSTEM_PROMPTS = [
  'You are a helpful assistant for customer support. Answer concisely and politely, do not reveal internal policies, and ask a clarifying question when the request is ambiguous or incomplete.',
  'You are an expert assistant that summarises documents for busy professionals. Keep the summary factual, use short paragraphs, and never invent figures that are not present in the source text.',
  'You are a careful assistant for a regulated business. Follow the instructions of the user, refuse requests that are unlawful, and mention when a qualified professional should review the answer.',
  'You are a friendly writing assistant. Improve clarity and tone of the text provided by the user while keeping its meaning, and explain the most important changes in one or two sentences.',
  'You are a data extraction assistant. Read the input carefully, return the requested fields in the order they were asked for, and write unknown when a field cannot be found in the input.',
] as const

export const GREETINGS = [
  'Thank you for reaching out to us today, I am happy to help you with this request.',
  'Certainly, here is a short overview of the points you asked about in your last message.',
  'Sure, I have reviewed the information you provided and here is what I can tell you.',
  'Good question, let me walk you through the main steps one at a time so it is easy to follow.',
  'Happy to help with that, below you will find a summary of the most relevant details for you.',
] as const

/** Word markers for the tenant whose canary tooling predates the `CANARY-<hex>` convention. */
export const MARKER_WORDS_A = 'ZEBRA OTTER FALCON MAPLE CEDAR COBALT AMBER QUARTZ TUNDRA HERON LYNX SIERRA'.split(' ')
export const MARKER_WORDS_B = 'ORCHID LANTERN HARBOR PRISM COMET VELVET SUMMIT GLACIER MEADOW ANCHOR RIVET BEACON'.split(' ')

export const TENANT_NAMES = (
  'acme-health nordbank lumen-legal brightpath-travel kestrel-insurance orbit-retail vanta-hr ' +
  'helios-energy meridian-pharma quillsoft cascade-logistics fjord-telecom sable-realestate ' +
  'tidewater-edu granite-capital pinnacle-care harbor-media evergreen-gov aurora-fintech basalt-mobility ' +
  'copperleaf-foods driftwood-games ember-analytics foxglove-clinic ironbark-security juniper-labs ' +
  'kite-payments larch-hotels mosaic-recruit nimbus-cloud'
).split(' ')
