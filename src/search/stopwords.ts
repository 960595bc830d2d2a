/**
 * English stopwords: the NLTK English list (itself derived from the Snowball list), plus the
 * modal verbs it leaves out (would, could, might, must, shall). These words carry almost no
 * topic, and MiniSearch multiplies a document's score by the number of query terms it
 * matches, so leaving them in rewards facts that merely share "did" and "the" with a
 * question. "may" is deliberately absent: it is also a month.
 *
 * Entries are lower-case surface forms, compared before stemming. Contractions appear as the
 * pieces the tokenizer splits them into ("don't" -> "don", "t").
 */
export const ENGLISH_STOPWORDS: ReadonlySet<string> = new Set([
  // NLTK english
  'i', 'me', 'my', 'myself', 'we', 'our', 'ours', 'ourselves', 'you', 'your', 'yours', 'yourself',
  'yourselves', 'he', 'him', 'his', 'himself', 'she', 'her', 'hers', 'herself', 'it', 'its', 'itself',
  'they', 'them', 'their', 'theirs', 'themselves', 'what', 'which', 'who', 'whom', 'this', 'that',
  'these', 'those', 'am', 'is', 'are', 'was', 'were', 'be', 'been', 'being', 'have', 'has', 'had',
  'having', 'do', 'does', 'did', 'doing', 'a', 'an', 'the', 'and', 'but', 'if', 'or', 'because', 'as',
  'until', 'while', 'of', 'at', 'by', 'for', 'with', 'about', 'against', 'between', 'into', 'through',
  'during', 'before', 'after', 'above', 'below', 'to', 'from', 'up', 'down', 'in', 'out', 'on', 'off',
  'over', 'under', 'again', 'further', 'then', 'once', 'here', 'there', 'when', 'where', 'why', 'how',
  'all', 'any', 'both', 'each', 'few', 'more', 'most', 'other', 'some', 'such', 'no', 'nor', 'not',
  'only', 'own', 'same', 'so', 'than', 'too', 'very', 's', 't', 'can', 'will', 'just', 'don', 'should',
  'now', 'd', 'll', 'm', 'o', 're', 've', 'y', 'ain', 'aren', 'couldn', 'didn', 'doesn', 'hadn',
  'hasn', 'haven', 'isn', 'ma', 'mightn', 'mustn', 'needn', 'shan', 'shouldn', 'wasn', 'weren', 'won',
  'wouldn',
  // modal verbs missing from the NLTK list
  'would', 'could', 'might', 'must', 'shall',
])
