package security_test

import (
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo/security"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		text, want, rule string
	}{
		{"The user prefers Python for data work", security.Internal, ""},
		{"Write to ana.silva@example.com about the invoice", security.Confidential, "email"},
		{"Call me at +1 (415) 555-0132 tomorrow", security.Confidential, "phone"},
		{"我的手机号是13812345678", security.Confidential, "phone"},
		{"SSN 078-05-1120 on the form", security.Restricted, "national_id"},
		{"身份证号 11010519491231002X", security.Restricted, "national_id"},
		{"Card 4111 1111 1111 1111 exp 12/29", security.Restricted, "card"},
		{"order number 4111 1111 1111 1112 shipped", security.Internal, ""}, // fails Luhn
		{"use key sk-proj-abcdefghijklmnop1234 for the API", security.Restricted, "api_key"},
		{"AWS AKIAIOSFODNN7EXAMPLE in the config", security.Restricted, "api_key"},
		{"Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345", security.Restricted, "token"},
		{"wifi password: hunter2!", security.Restricted, "password"},
		{"路由器密码是 abc12345", security.Restricted, "password"},
		{"This roadmap is confidential until June", security.Confidential, "keyword"},
		{"季度报表属于机密", security.Confidential, "keyword"},
		{"My calendar is full on Monday", security.Internal, ""}, // "nda" inside a word
		{"The meeting is at 10:30 in room 2041", security.Internal, ""},
	}
	for _, tt := range tests {
		got, found := security.Classify(tt.text, security.Internal)
		if got != tt.want {
			t.Errorf("Classify(%q) = %s %+v, want %s", tt.text, got, found, tt.want)
			continue
		}
		if tt.rule != "" && (len(found) == 0 || found[0].Rule != tt.rule) {
			t.Errorf("Classify(%q) findings %+v, want rule %s", tt.text, found, tt.rule)
		}
		if tt.rule == "" && len(found) != 0 {
			t.Errorf("Classify(%q) findings %+v, want none", tt.text, found)
		}
	}
	if got, _ := security.Classify("nothing here", security.Public); got != security.Public {
		t.Errorf("default kept: %s", got)
	}
	if got, _ := security.Classify("mail a@b.co and pin: 1234", security.Internal); got != security.Restricted {
		t.Errorf("highest finding wins: %s", got)
	}
}

func TestMaskAndRedact(t *testing.T) {
	if got := security.Mask(security.Label(security.Confidential), "秘密文本"); got != "[CONFIDENTIAL] ****** (4 characters)" {
		t.Errorf("Mask = %q", got)
	}
	if security.Label(security.Internal) != "" || security.Label(security.Public) != "" {
		t.Error("internal and public are shown")
	}
	// Masking a mask again keeps the first length: the gate and a way out
	// may both mask (SEC-7); any other text is masked whatever it looks like.
	label := security.Label(security.Restricted)
	once := security.Mask(label, "the vault code is 4471")
	for _, s := range []string{once, "[RESTRICTED] ****** (x characters)", "[CONFIDENTIAL] ****** (3 characters)", "[RESTRICTED] ****** (3 characters) and 4471"} {
		got := security.Mask(label, s)
		if want := s == once; (got == s) != want || strings.Contains(got, "4471") {
			t.Errorf("Mask(%q) = %q", s, got)
		}
	}
	got := security.Redact("mail ana@example.com, card 4111-1111-1111-1111, order 1234 5678 9012 3456, key sk-abcdefghijklmnopqrst")
	for _, leak := range []string{"ana@example.com", "4111-1111-1111-1111", "sk-abcdefghijklmnopqrst"} {
		if strings.Contains(got, leak) {
			t.Errorf("Redact kept %q: %s", leak, got)
		}
	}
	if got := security.Redact("手机号13812345678。"); got != "手机号[PHONE]。" {
		t.Errorf("Redact keeps the text around a number: %q", got)
	}
	if !strings.Contains(got, "[EMAIL]") || !strings.Contains(got, "[CARD]") || !strings.Contains(got, "order 1234 5678 9012 3456") {
		t.Errorf("Redact = %s", got)
	}
}

// Each span is read where the rule matched it, and the character that
// ends one span may begin the next (SEC-4, SEC-6): a rule's boundaries (\b, the
// non-digit before a number) hold in the text, not in the match alone.
func TestRedactInContext(t *testing.T) {
	for _, tt := range []struct{ in, want, level string }{
		{"0@0.AA%@0.AA", "[EMAIL][EMAIL]", security.Confidential},
		{"电话13812345678,13912345678。", "电话[PHONE],[PHONE]。", security.Confidential},
		{"call 13812345678 13912345678 now", "call [PHONE] [PHONE] now", security.Confidential},
		{"ids 11010519491231002X,11010519491231002X", "ids [NATIONAL_ID],[NATIONAL_ID]", security.Restricted},
		// The first fails its check character; the next is an ID all the same.
		{"ids 110105194912310020,11010519491231002X", "ids 110105194912310020,[NATIONAL_ID]", security.Restricted},
		{"order 138123456789", "order 138123456789", security.Internal},
	} {
		if got := security.Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if level, _ := security.Classify(tt.in, security.Internal); level != tt.level {
			t.Errorf("Classify(%q) = %s, want %s", tt.in, level, tt.level)
		}
		var buf strings.Builder
		slog.New(security.LogHandler(slog.NewTextHandler(&buf, nil))).Info(tt.in)
		if !strings.Contains(buf.String(), tt.want) {
			t.Errorf("log line of %q = %s", tt.in, buf.String())
		}
	}
}

func TestLogHandler(t *testing.T) {
	var buf strings.Builder
	log := slog.New(security.LogHandler(slog.NewTextHandler(&buf, nil))).With("user", "ana@example.com")
	log.Info("sent to ana@example.com", "err", errors.New("card 4111111111111111 declined"), slog.Group("req", "auth", "Bearer abcdefghijklmnopqrstuvwxyz"), "n", 3)
	out := buf.String()
	for _, leak := range []string{"ana@example.com", "4111111111111111", "abcdefghijklmnopqrstuvwxyz"} {
		if strings.Contains(out, leak) {
			t.Errorf("log line leaks %q: %s", leak, out)
		}
	}
	if !strings.Contains(out, "n=3") || !strings.Contains(out, "[EMAIL]") {
		t.Errorf("log line = %s", out)
	}
}

func FuzzClassify(f *testing.F) {
	for _, s := range []string{"a@b.co", "4111 1111 1111 1111", "密码：x", "11010519491231002X", "\xff\xfe", strings.Repeat("1 ", 500)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		level, found := security.Classify(s, security.Internal)
		if security.Rank(level) < security.Rank(security.Internal) {
			t.Fatalf("level %q below the default", level)
		}
		for _, fd := range found {
			if security.Rank(fd.Level) > security.Rank(level) {
				t.Fatalf("finding %+v above the level %s", fd, level)
			}
		}
		security.Redact(s)
	})
}

// BenchmarkClassify is the classification every write pays (PERF-1): a
// sentence of plain words, most memories' kind.
func BenchmarkClassify(b *testing.B) {
	text := "the team moved the weekly planning meeting to the larger room after lunch because more people joined"
	for b.Loop() {
		security.Classify(text, security.Internal)
	}
}
