package security

import (
	"strings"
	"testing"
)

// TestMayIsSound checks that a rule's may holds of every text the rule
// matches, so that skipping the texts it rules out changes no
// classification: each text below is matched by some rule.
func TestMayIsSound(t *testing.T) {
	texts := []string{
		"SSN 078-05-1120 on the form",
		"身份证号 11010519491231002X",
		"Card 4111 1111 1111 1111 exp 12/29",
		"-----BEGIN RSA PRIVATE KEY-----",
		"-----BEGIN PRIVATE KEY-----",
		"Write to ana.silva@example.com about the invoice",
		"Write to ANA@EXAMPLE.COM",
		"Call me at +1 (415) 555-0132 tomorrow",
		"call (415) 555-0132 or 415.555.0132",
		"我的手机号是13812345678",
		"use key sk-proj-abcdefghijklmnop1234 for the API",
		"AWS AKIAIOSFODNN7EXAMPLE in the config",
		"token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
		"slack xoxb-1234567890-abcdef",
		"google AIzaSyA1234567890abcdefghijklmnopqrstuv",
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijk",
		"Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345",
		"AUTHORIZATION: BEARER abcdefghijklmnopqrstuvwxyz012345",
		"wifi password: hunter2!",
		"WiFi PASSWD = hunter2",
		"the PIN is 1234",
		"pwd: x",
		"paſſword: hunter2", // ſ is an s to (?i)
		"路由器密码是 abc12345",
		"口令为 xyz",
	}
	for _, r := range rules {
		if r.may == nil {
			continue
		}
		matched := false
		for _, text := range texts {
			if !r.re.MatchString(text) {
				continue
			}
			matched = true
			if !r.may(text, strings.ToLower(text)) {
				t.Errorf("rule %s matches %q, which its may rules out", r.name, text)
			}
		}
		if !matched {
			t.Errorf("rule %s (%s) matches none of the texts", r.name, r.re)
		}
	}
	// The rules out what it should: plain words.
	plain := "the team moved the weekly planning meeting to the larger room"
	for _, r := range rules {
		if r.may != nil && r.may(plain, plain) {
			t.Errorf("rule %s searches a text of plain words", r.name)
		}
	}
}
