package analysis

// The tables below are read-only after package initialisation.

// stopWords are English words dropped from the index: function words,
// auxiliaries, pronouns and the filler of chat ("oh", "yeah", "hi").
// It starts from the Snowball English list, minus the negations (see
// negations), plus modals and the apostrophe-less contractions people type
// in chat ("im", "youre", "thats").
var stopWords = map[string]struct{}{
	"a": {}, "about": {}, "above": {}, "after": {}, "again": {}, "against": {},
	"all": {}, "also": {}, "although": {}, "am": {}, "an": {}, "and": {},
	"any": {}, "anyway": {}, "are": {}, "as": {}, "at": {},
	"be": {}, "because": {}, "been": {}, "before": {}, "being": {}, "below": {},
	"between": {}, "both": {}, "but": {}, "by": {},
	"can": {}, "could": {},
	"did": {}, "do": {}, "does": {}, "doing": {}, "down": {}, "during": {},
	"each": {}, "else": {}, "etc": {},
	"few": {}, "for": {}, "from": {}, "further": {},
	"had": {}, "has": {}, "have": {}, "having": {}, "he": {}, "hello": {},
	"her": {}, "here": {}, "hers": {}, "herself": {}, "hes": {}, "hey": {},
	"hi": {}, "him": {}, "himself": {}, "his": {}, "how": {}, "however": {},
	"i": {}, "if": {}, "im": {}, "in": {}, "into": {}, "is": {}, "it": {},
	"its": {}, "itself": {}, "ive": {},
	"just": {},
	"many": {}, "may": {}, "me": {}, "might": {}, "mine": {}, "more": {},
	"most": {}, "much": {}, "must": {}, "my": {}, "myself": {},
	"of": {}, "off": {}, "oh": {}, "ok": {}, "okay": {}, "on": {}, "once": {},
	"only": {}, "onto": {}, "or": {}, "other": {}, "others": {}, "ought": {},
	"our": {}, "ours": {}, "ourselves": {}, "out": {}, "over": {}, "own": {},
	"same": {}, "shall": {}, "she": {}, "shes": {}, "should": {}, "so": {},
	"some": {}, "such": {},
	"than": {}, "that": {}, "thats": {}, "the": {}, "their": {}, "theirs": {},
	"them": {}, "themselves": {}, "then": {}, "there": {}, "theres": {},
	"these": {}, "they": {}, "theyre": {}, "theyve": {}, "this": {},
	"those": {}, "though": {}, "through": {}, "thus": {}, "to": {}, "too": {},
	"uh": {}, "um": {}, "under": {}, "until": {}, "up": {}, "upon": {}, "us": {},
	"very": {}, "via": {},
	"was": {}, "we": {}, "were": {}, "weve": {}, "what": {}, "whats": {},
	"when": {}, "where": {}, "whether": {}, "which": {}, "while": {}, "who": {},
	"whom": {}, "whose": {}, "why": {}, "will": {}, "with": {}, "would": {},
	"yeah": {}, "yep": {}, "yes": {}, "you": {}, "youd": {}, "youll": {},
	"your": {}, "youre": {}, "yours": {}, "yourself": {}, "yourselves": {},
	"youve": {},
}

// negations are deliberately not stop words. In speaker-turn chat, "Caroline
// doesn't eat meat" and "Caroline eats meat" differ only here; keeping the
// word costs little, as BM25 gives such a common term a low weight, and lets
// a negated question favour negated turns. They are not keywords, though.
var negations = map[string]struct{}{
	"no": {}, "nor": {}, "not": {}, "never": {}, "none": {}, "nothing": {},
	"nobody": {}, "neither": {}, "nowhere": {},
}

// notForms are negative contractions written without an apostrophe, all
// indexed as "not" like their apostrophe forms ("don't" -> "not"). Their
// positive halves are stop words anyway.
var notForms = map[string]struct{}{
	"aint": {}, "arent": {}, "cannot": {}, "cant": {}, "couldnt": {},
	"didnt": {}, "doesnt": {}, "dont": {}, "hadnt": {}, "hasnt": {},
	"havent": {}, "isnt": {}, "mightnt": {}, "mustnt": {}, "neednt": {},
	"shant": {}, "shouldnt": {}, "wasnt": {}, "werent": {}, "wont": {},
	"wouldnt": {},
}

// stopChars are single Chinese characters (and Japanese particles) that
// mostly act as function words: particles, pronouns, common prepositions
// and conjunctions, interjections, and a few very common verbs (用, 写) that
// rarely carry the topic. A CJK run is split at them, so "我喜欢用Python写代码"
// keeps 喜欢 and 代码 instead of bigrams such as 欢用 and 写代.
var stopChars = map[rune]struct{}{
	// Structural particles and aspect markers.
	'的': {}, '了': {}, '着': {}, '过': {},
	// Copula, prepositions, conjunctions and adverbs.
	'是': {}, '在': {}, '和': {}, '与': {}, '及': {}, '或': {}, '也': {},
	'都': {}, '就': {}, '而': {}, '但': {}, '把': {}, '被': {}, '让': {},
	'给': {}, '对': {}, '从': {}, '很': {}, '又': {}, '还': {}, '只': {},
	// Sentence-final particles and interjections.
	'吗': {}, '呢': {}, '吧': {}, '啊': {}, '呀': {}, '哦': {}, '嗯': {},
	'么': {}, '啦': {}, '嘛': {}, '哈': {}, '呃': {}, '哎': {}, '噢': {},
	// Pronouns and demonstratives.
	'我': {}, '你': {}, '他': {}, '她': {}, '它': {}, '您': {}, '们': {},
	'这': {}, '那': {}, '个': {},
	// Light verbs.
	'用': {}, '写': {},
	// Japanese case and sentence-final particles (hiragana).
	'の': {}, 'は': {}, 'が': {}, 'を': {}, 'に': {}, 'で': {}, 'と': {},
	'も': {}, 'か': {}, 'ね': {}, 'よ': {}, 'へ': {},
}

// keepPairs are common words that contain a stop character but carry
// meaning; a stop character inside one of them is kept, so 使用 and 对话
// stay whole rather than leaving 使 and 话 behind.
var keepPairs = map[string]struct{}{
	"使用": {}, "用户": {}, "作用": {}, "费用": {}, "应用": {}, "有用": {},
	"利用": {}, "常用": {}, "采用": {}, "信用": {}, "用品": {}, "用途": {},
	"写作": {}, "书写": {}, "描写": {}, "写字": {},
	"目的": {}, "了解": {}, "着急": {}, "过去": {}, "经过": {}, "通过": {},
	"过程": {}, "存在": {}, "在线": {}, "和平": {}, "参与": {}, "首都": {},
	"都市": {}, "把握": {}, "被子": {}, "供给": {}, "服从": {},
	"对话": {}, "对象": {}, "对比": {}, "对方": {}, "对手": {}, "反对": {},
	"相对": {}, "绝对": {}, "自我": {}, "其他": {}, "吉他": {}, "个人": {},
	"个性": {},
}

// stopPairs are two-character function words. Both characters of every
// occurrence are removed before bigrams are formed, so 因为 leaves neither
// 因为 nor a stray bigram joining 为 to the next word. 为什 stands for
// 为什么 and 么样 for 怎么样, whose other halves are already stops.
var stopPairs = map[string]struct{}{
	"我们": {}, "你们": {}, "他们": {}, "她们": {}, "它们": {}, "咱们": {},
	"什么": {}, "为什": {}, "怎么": {}, "么样": {},
	"这个": {}, "那个": {}, "一个": {}, "这些": {}, "那些": {}, "这样": {},
	"那样": {}, "这里": {}, "那里": {}, "哪里": {}, "哪个": {}, "这么": {},
	"那么": {},
	"因为": {}, "所以": {}, "但是": {}, "而且": {}, "然后": {}, "如果": {},
	"虽然": {}, "可是": {}, "或者": {}, "以及": {}, "然而": {}, "于是": {},
	"因此": {}, "还是": {}, "还有": {}, "就是": {}, "也是": {},
	"都是": {}, "只是": {}, "可以": {}, "已经": {}, "自己": {}, "一些": {},
	"一下": {}, "一点": {}, "有点": {}, "现在": {}, "正在": {}, "时候": {},
	"的话": {}, "其实": {},
	// Japanese: copula and polite endings, demonstratives.
	"です": {}, "ます": {}, "まし": {}, "した": {}, "して": {}, "これ": {},
	"それ": {}, "あれ": {}, "この": {}, "その": {}, "あの": {}, "ここ": {},
	"そこ": {}, "こと": {},
}
