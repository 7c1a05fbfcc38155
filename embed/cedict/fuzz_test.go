package cedict

import "testing"

// FuzzParse checks that any file either fails to parse or gives a lexicon
// whose every method stays within it.
func FuzzParse(f *testing.F) {
	f.Add(data[:4096])
	f.Add([]byte(magic + "\x01\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00\x00\x03\x00\x00\x00" +
		"\x00\x00\x00\x00\x03\x00\x00\x00" + "\x00\x00\x00\x00\x01\x00\x00\x00" + "\x00\x00\x00\x00\x03\x00\x00\x00" +
		"\x00\x00" + "猫" + "cat"))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := Parse(b)
		if err != nil {
			return
		}
		for _, s := range []string{"猫", "老师喝咖啡", "a猫b", "\xff猫\xe7"} {
			l.Segment(s, func(i, _ int) { l.Glosses(i, 0, func(string) {}) })
			l.Translate(s, 3)
		}
		l.Glosses(-1, 0, func(string) {})
		l.Glosses(l.Len(), 0, func(string) {})
	})
}

// FuzzTranslate checks that the built-in lexicon translates any text, valid
// UTF-8 or not, to a text without Han characters.
func FuzzTranslate(f *testing.F) {
	for _, s := range []string{"", "用户每天喝咖啡", "abc", "ab\xffcd\xc3猫", "急跌后反弹信号2小时内有效", "𠀀𠀁"} {
		f.Add(s)
	}
	l, err := New()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if got := l.Translate(text, 2); IsChinese(text) && HasHan(got) || !IsChinese(text) && got != text {
			t.Fatalf("Translate(%q) = %q", text, got)
		}
	})
}
