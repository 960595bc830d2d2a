import assert from 'node:assert/strict'

import {highlight} from '../../src/cli/render-highlight.js'
import {FactIndex} from '../../src/search/fact-index.js'
import {analyze, queryWords, tokenize, unsearchable} from '../../src/search/tokenize.js'
import {bytesIn, decodeIndex, encodeIndex, joined} from '../../src/index/index-codec.js'

/** Facts in scripts written without spaces, and two in scripts that have them, for contrast. */
/** Where a saved index stands, as the search layer writes it. */
const STAMP = {cursor: 'c1', signature: 'test'}

const FACTS = [
  ['J1', '東京のオフィスは3階にあります'],
  ['J2', '東京タワーの近くでランチを食べました'],
  ['J3', 'ラーメンが好きです'],
  ['J4', '京都の工場は来月閉鎖されます'],
  ['C1', '我们的数据库在上海的机房'],
  ['C2', '会议室在三楼，每周一开会'],
  ['C3', '小王喜欢喝咖啡'],
  ['T1', 'ร้านกาแฟอยู่ชั้นสามของตึก'],
  ['T2', 'ประชุมทีมทุกวันจันทร์'],
  ['K1', '서울 사무실은 3층에 있습니다'],
  ['E1', 'The coffee machine on the third floor is descaled every Monday'],
] as const

function indexOf(facts: readonly (readonly [string, string])[]): FactIndex {
  const index = new FactIndex()
  facts.forEach(([id, content], i) =>
    index.add({id, content, tags: [], created_at: new Date(Date.UTC(2025, 0, 1 + i)).toISOString()}),
  )
  return index
}

const ids = (index: FactIndex, query: string) => index.search(query, {limit: 10}).map((h) => h.id)

describe('scripts written without spaces', () => {
  describe('tokenize', () => {
    it('splits Han and Kana into overlapping pairs, whatever words a segmenter would cut', () => {
      assert.deepEqual(tokenize('東京タワー', 'query'), ['東京', '京タ', 'タワ', 'ワー'])
      assert.deepEqual(tokenize('数据库', 'query'), ['数据', '据库'])
    })

    it('indexes each Han character of a fact too, and queries a lone character as itself', () => {
      assert.deepEqual(tokenize('数据库'), ['数据', '据库', '数', '据', '库'])
      assert.deepEqual(tokenize('猫', 'query'), ['猫'])
      // Kana alone are mostly particles: not indexed one by one.
      assert.deepEqual(tokenize('ランチ'), ['ラン', 'ンチ'])
    })

    it('splits Thai, Lao, Khmer and Burmese into the words of the segmenter', () => {
      assert.deepEqual(tokenize('ร้านกาแฟอยู่ชั้นสาม'), ['ร้าน', 'กาแฟ', 'อยู่', 'ชั้น', 'สาม'])
      // NFKD would split ำ (sara am) and the segmenter would then cut ทำงาน in two.
      assert.deepEqual(tokenize('ทำงานที่บ้าน'), ['ทำงาน', 'ที่', 'บ้าน'])
      assert.ok(tokenize('ປະຊຸມທີມທຸກວັນຈັນ').length > 1)
      assert.ok(tokenize('ខ្ញុំចូលចិត្តកាហ្វេ').length > 1)
    })

    it('folds half-width and decomposed kana, and splits digits and Latin words off the run', () => {
      assert.deepEqual(tokenize('ｶﾞｲﾄﾞ', 'query'), tokenize('ガイド', 'query'))
      assert.deepEqual(tokenize('か\u3099いと\u3099', 'query'), tokenize('がいど', 'query'))
      assert.deepEqual(tokenize('3階、iPhone的电池', 'query'), ['3', '階', 'iphone', '的电', '电池'])
    })

    it('leaves every other script as it was', () => {
      const text = "Caroline's café-crème, don't worry: 서울 사무실 हिंदी Москва"
      assert.deepEqual(tokenize(text), [
        'caroline',
        'cafe',
        'creme',
        'worry',
        ...tokenize('서울 사무실'),
        'हिंदी',
        'москва',
      ])
    })

    it('applies no stopword list and no stemming to them', () => {
      assert.deepEqual(analyze('的'), ['的'])
      assert.deepEqual(analyze('はい'), ['はい'])
      assert.deepEqual(analyze('ของ'), ['ของ'])
      assert.equal(unsearchable('東京'), undefined)
    })

    it('never marks such a word as being typed', () => {
      assert.deepEqual(
        queryWords('ランチ', true).map((w) => w.partial),
        [false, false],
      )
      assert.equal(queryWords('coffee', true)[0]!.partial, true)
    })
  })

  describe('highlight (mem search and mem browse at a terminal)', () => {
    const marked = (text: string, query: string) =>
      highlight(text, query)
        .map((s) => (s.match ? `[${s.text}]` : s.text))
        .join('')

    it('marks the characters of the query, not the whole run', () => {
      assert.equal(marked('東京のオフィスは3階にあります', '東京'), '[東京]のオフィスは3階にあります')
      assert.equal(marked('東京のオフィスは3階にあります', '3階'), '東京のオフィスは[3階]にあります')
      assert.equal(
        marked('東京タワーの近くでランチを食べました', '東京 ランチ'),
        '[東京]タワーの近くで[ランチ]を食べました',
      )
      assert.equal(marked('会议室在三楼，每周一开会', '楼'), '会议室在三[楼]，每周一开会')
      assert.equal(marked('ร้านกาแฟอยู่ชั้นสามของตึก', 'กาแฟ'), 'ร้าน[กาแฟ]อยู่ชั้นสามของตึก')
    })

    it('marks the words around a run as any other word', () => {
      assert.equal(marked('iPhone的电池很好, deploys', 'iphone 电池 deploy'), '[iPhone]的[电池]很好, [deploys]')
    })
  })

  describe('search', () => {
    const index = indexOf(FACTS)

    for (const [query, wanted] of [
      ['東京', 'J1'],
      ['オフィス', 'J1'],
      ['ランチ', 'J2'],
      ['ラーメン', 'J3'],
      ['工場', 'J4'],
      ['数据库', 'C1'],
      ['上海', 'C1'],
      ['会议室', 'C2'],
      ['咖啡', 'C3'],
      ['กาแฟ', 'T1'],
      ['ประชุม', 'T2'],
      ['사무실은', 'K1'],
      ['coffee', 'E1'],
    ] as const) {
      it(`${query} finds ${wanted} first`, () => {
        assert.equal(ids(index, query)[0], wanted)
      })
    }

    it('finds 東京 in 東京タワー, which the segmenter keeps as one word', () => {
      assert.deepEqual(ids(index, '東京').sort(), ['J1', 'J2'])
    })

    it('finds a fact by one ideograph', () => {
      assert.deepEqual(ids(index, '楼'), ['C2'])
      assert.deepEqual(ids(index, '階'), ['J1'])
    })

    it('ranks the fact holding more of a longer query first', () => {
      assert.equal(ids(index, '東京のランチ')[0], 'J2')
    })

    it('matches no prefix or typo: a pair or a Thai word one letter off finds nothing', () => {
      assert.deepEqual(ids(index, 'ラー'), ['J3'])
      assert.deepEqual(ids(index, '数据车'), ['C1'])
      // กาแฟ (coffee) with its last letter replaced.
      assert.deepEqual(ids(index, 'กาแพ'), [])
    })

    it('hands a question ending with ？ on to its reply, as one ending with ?', () => {
      const talk = new FactIndex()
      const turns = ['小王：你周末去哪儿了？', '小李：我去了杭州看西湖。', '小王：天气怎么样？', '小李：下雨了。']
      turns.forEach((content, i) =>
        talk.add({
          id: `T${i}`,
          content,
          tags: [],
          thread: 'chat',
          created_at: new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString(),
        }),
      )
      const hits = talk.search('周末', {limit: 5})
      // The reply gets the question's whole score, so it ranks first (ties go to the newer fact).
      assert.deepEqual(
        hits.map((h) => h.id),
        ['T1', 'T0', 'T2'],
      )
      assert.equal(hits[0]!.score, hits[1]!.score)
    })

    it("loads from its saved form (and the search layer's encoding) with the same results", () => {
      const loaded = FactIndex.fromCompact(
        decodeIndex(bytesIn(joined(encodeIndex(index, STAMP)!)), STAMP.signature)!.index,
      )
      for (const query of ['東京', '数据库', '楼', 'ランチ', 'กาแฟ', 'coffee'])
        assert.deepEqual(loaded.search(query, {limit: 10}), index.search(query, {limit: 10}), query)
    })
  })
})
