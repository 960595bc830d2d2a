/**
 * Word forms a suffix-stripping stemmer cannot meet: irregular verbs ("bought" and "buy") and
 * irregular plurals ("children" and "child"), from the usual grammar-book tables. Each maps to
 * its base form, which the stemmer then handles as usual, so "What did she buy?" finds "She
 * bought a kayak". Forms that are as often another word are left out: "saw" (the tool), "rose"
 * (the flower), "ground", "wound", "bore", "lay", "bit", "lives" (also the verb), "leaves".
 *
 * One line per base form: the base, then its irregular forms.
 */
const TABLE = `
arise arose arisen
awake awoke awoken
beat beaten
become became
begin began begun
bend bent
bleed bled
blow blew blown
break broke broken
bring brought
build built
burn burnt
buy bought
catch caught
choose chose chosen
come came
creep crept
deal dealt
dig dug
draw drew drawn
dream dreamt
drink drank drunk
drive drove driven
eat ate eaten
fall fell fallen
feed fed
feel felt
fight fought
find found
flee fled
fly flew flown
forbid forbade forbidden
forget forgot forgotten
forgive forgave forgiven
freeze froze frozen
get got gotten
give gave given
go went gone
grow grew grown
hang hung
hear heard
hide hid hidden
hold held
keep kept
kneel knelt
know knew known
lay laid
lead led
leap leapt
learn learnt
leave left
lend lent
lose lost
make made
mean meant
meet met
mistake mistook mistaken
overcome overcame
pay paid
ride rode ridden
ring rang rung
run ran
say said
seek sought
sell sold
send sent
shake shook shaken
shine shone
shoot shot
shrink shrank shrunk
sing sang sung
sink sank sunk
sit sat
sleep slept
slide slid
speak spoke spoken
speed sped
spend spent
spin spun
spring sprang sprung
stand stood
steal stole stolen
stick stuck
sting stung
strike struck
strive strove
swear swore sworn
sweep swept
swim swam swum
swing swung
take took taken
teach taught
tear tore torn
tell told
think thought
throw threw thrown
understand understood
undertake undertook undertaken
wake woke woken
wear wore worn
weep wept
withdraw withdrew withdrawn
write wrote written
child children
foot feet
goose geese
half halves
knife knives
loaf loaves
man men
mouse mice
person people
shelf shelves
thief thieves
tooth teeth
wife wives
wolf wolves
woman women
`

const BASE_OF: ReadonlyMap<string, string> = new Map(
  TABLE.trim()
    .split('\n')
    .flatMap((line) => {
      const [base, ...forms] = line.split(' ')
      return forms.map((form) => [form, base!] as const)
    }),
)

/** The base form of a lower-case word the stemmer cannot reduce ("bought" -> "buy"), or undefined. */
export function baseForm(word: string): string | undefined {
  return BASE_OF.get(word)
}
