package email

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/textproto"
	"regexp"
	"strings"

	gomail "github.com/wneessen/go-mail"

	"github.com/statuswatch/statuswatch/internal/notify"
	"github.com/statuswatch/statuswatch/internal/notify/kit"
)

// classify gives an SMTP failure its meaning for delivery (docs/design.md §7 Delivery):
//   - no answer (connection refused, timeout, a dropped line) and every 4xx: transient;
//   - the login or the connection's security refused (535, 534, 530, 538, no STARTTLS
//     or no AUTH offered, a certificate that does not verify), and a 5xx before the
//     message (the server will take nothing from us): auth, which pauses the receiver
//     until the config is fixed, dropping nothing;
//   - the sender or a recipient refused with 5xx: the destination is gone, its messages
//     park (auth when the enhanced code is 5.7.x: "authenticate first", "relaying
//     denied");
//   - the message refused with 5xx (too big, content): rejected, once more as text only,
//     then parked.
//
// The password never appears in the text.
func classify(what string, err error, password string) error {
	c := notify.Transient
	var se *gomail.SendError
	var te *textproto.Error
	var ne net.Error
	var cv *tls.CertificateVerificationError
	var ua x509.UnknownAuthorityError
	var hn x509.HostnameError
	var ci x509.CertificateInvalidError
	switch {
	case errors.As(err, &se):
		code := se.ErrorCode()
		switch {
		case code == 0 && se.IsTemp(), code >= 400 && code < 500:
			c = notify.Transient
		case authCode(code):
			c = notify.Auth
		case code >= 500 && (se.Reason == gomail.ErrSMTPMailFrom || se.Reason == gomail.ErrSMTPRcptTo):
			c = notify.ChannelGone
			if securityCode.MatchString(se.Error()) {
				// 5.7.x before the message: "authenticate first", "relaying denied" —
				// who we are or how we connect, which the config fixes.
				c = notify.Auth
			}
		case code >= 500:
			c = notify.Rejected
		}
	case errors.As(err, &cv), errors.As(err, &ua), errors.As(err, &hn), errors.As(err, &ci):
		c = notify.Auth
	case errors.As(err, &te):
		switch {
		case te.Code >= 400 && te.Code < 500:
			c = notify.Transient
		case te.Code >= 500:
			c = notify.Auth
		}
	case errors.As(err, &ne):
		c = notify.Transient
	case authSetup(err):
		c = notify.Auth
	}
	return notify.Classify(c, errors.New(kit.Redact(what+": "+err.Error(), password)))
}

// securityCode is an enhanced status code of class 5.7, security or policy (RFC 3463).
var securityCode = regexp.MustCompile(`\b5\.7\.\d{1,3}\b`)

// authCode reports whether an SMTP code refuses who we are: 530 authentication
// required, 534 mechanism too weak, 535 credentials invalid, 538 encryption required.
func authCode(code int) bool {
	return code == 530 || code == 534 || code == 535 || code == 538
}

// authSetup reports whether err says the server cannot log us in or secure the
// connection as configured: no STARTTLS, no AUTH, no mechanism in common.
func authSetup(err error) bool {
	for _, e := range []error{gomail.ErrNoSupportedAuthDiscovered, gomail.ErrPlainAuthNotSupported, gomail.ErrLoginAuthNotSupported} {
		if errors.Is(err, e) {
			return true
		}
	}
	s := err.Error()
	return strings.Contains(s, "does not support STARTTLS") || strings.Contains(s, "does not support SMTP AUTH") ||
		strings.Contains(s, "SMTP AUTH failed") || strings.Contains(s, "unencrypted connection")
}
