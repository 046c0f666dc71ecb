package tpch

import (
	"math/rand/v2"
	"strings"
)

// textPoolSize is the length of the sentence pool comments are cut from.
// dbgen's pool is 300 MB; 8 MB keeps generation fast and still gives each
// comment its own text (substrings start at any of 8M offsets).
const textPoolSize = 8 << 20

// textPool builds the pool of sentences of TPC-H 4.2.2.14's grammar:
//
//	sentence: noun-phrase verb-phrase terminator
//	        | noun-phrase verb-phrase prepositional-phrase terminator
//	        | noun-phrase verb-phrase noun-phrase terminator
//	        | noun-phrase prepositional-phrase verb-phrase noun-phrase terminator
//	        | noun-phrase prepositional-phrase verb-phrase prepositional-phrase terminator
//	noun-phrase: noun | adjective noun | adjective, adjective noun | adverb adjective noun
//	verb-phrase: verb | auxiliary verb | verb adverb | auxiliary verb adverb
//	prepositional-phrase: preposition the noun-phrase
//
// The specification weights the choices; here they are uniform.
func textPool(seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 0x7e47))
	pick := func(ws []string) string { return ws[r.IntN(len(ws))] }
	var b strings.Builder
	b.Grow(textPoolSize + 256)
	noun := func() {
		switch r.IntN(4) {
		case 0:
			b.WriteString(pick(nouns))
		case 1:
			b.WriteString(pick(adjectives) + " " + pick(nouns))
		case 2:
			b.WriteString(pick(adjectives) + ", " + pick(adjectives) + " " + pick(nouns))
		default:
			b.WriteString(pick(adverbs) + " " + pick(adjectives) + " " + pick(nouns))
		}
	}
	verb := func() {
		switch r.IntN(4) {
		case 0:
			b.WriteString(pick(verbs))
		case 1:
			b.WriteString(pick(auxiliaries) + " " + pick(verbs))
		case 2:
			b.WriteString(pick(verbs) + " " + pick(adverbs))
		default:
			b.WriteString(pick(auxiliaries) + " " + pick(verbs) + " " + pick(adverbs))
		}
	}
	prep := func() {
		b.WriteString(pick(prepositions) + " the ")
		noun()
	}
	for b.Len() < textPoolSize {
		switch r.IntN(5) {
		case 0:
			noun()
			b.WriteByte(' ')
			verb()
		case 1:
			noun()
			b.WriteByte(' ')
			verb()
			b.WriteByte(' ')
			prep()
		case 2:
			noun()
			b.WriteByte(' ')
			verb()
			b.WriteByte(' ')
			noun()
		case 3:
			noun()
			b.WriteByte(' ')
			prep()
			b.WriteByte(' ')
			verb()
			b.WriteByte(' ')
			noun()
		default:
			noun()
			b.WriteByte(' ')
			prep()
			b.WriteByte(' ')
			verb()
			b.WriteByte(' ')
			prep()
		}
		b.WriteString(pick(terminators))
		b.WriteByte(' ')
	}
	return b.String()
}

// text is a comment of a length uniform in [lo, hi]: a substring of the
// pool at a random offset (4.2.2.10).
func text(r *rand.Rand, pool string, lo, hi int) string {
	n := lo + r.IntN(hi-lo+1)
	off := r.IntN(len(pool) - n)
	return pool[off : off+n]
}

// vstring is a random alphanumeric string of a length uniform in [lo, hi]
// (4.2.2.7's v-string, used for addresses).
func vstring(r *rand.Rand, lo, hi int) string {
	const alnum = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ,."
	n := lo + r.IntN(hi-lo+1)
	b := make([]byte, n)
	for i := range b {
		b[i] = alnum[r.IntN(len(alnum))]
	}
	return string(b)
}
