package main

import (
	"context"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// The flows the demo provider does not offer: each answers that it is not
// supported. Only client_credentials works (see provider.go).

func errUnsupported() error {
	return oidc.ErrUnsupportedGrantType().WithDescription("this demo provider offers client_credentials only")
}

func (s *storage) CreateAuthRequest(context.Context, *oidc.AuthRequest, string) (op.AuthRequest, error) {
	return nil, errUnsupported()
}
func (s *storage) AuthRequestByID(context.Context, string) (op.AuthRequest, error) {
	return nil, errUnsupported()
}
func (s *storage) AuthRequestByCode(context.Context, string) (op.AuthRequest, error) {
	return nil, errUnsupported()
}
func (s *storage) SaveAuthCode(context.Context, string, string) error { return errUnsupported() }
func (s *storage) DeleteAuthRequest(context.Context, string) error    { return errUnsupported() }
func (s *storage) CreateAccessAndRefreshTokens(context.Context, op.TokenRequest, string) (string, string, time.Time, error) {
	return "", "", time.Time{}, errUnsupported()
}
func (s *storage) TokenRequestByRefreshToken(context.Context, string) (op.RefreshTokenRequest, error) {
	return nil, errUnsupported()
}
func (s *storage) TerminateSession(context.Context, string, string) error { return errUnsupported() }
func (s *storage) RevokeToken(context.Context, string, string, string) *oidc.Error {
	return oidc.ErrRequestNotSupported()
}
func (s *storage) GetRefreshTokenInfo(context.Context, string, string) (string, string, error) {
	return "", "", op.ErrInvalidRefreshToken
}
func (s *storage) SetUserinfoFromScopes(context.Context, *oidc.UserInfo, string, string, []string) error {
	return errUnsupported()
}
func (s *storage) SetUserinfoFromToken(context.Context, *oidc.UserInfo, string, string, string) error {
	return errUnsupported()
}
func (s *storage) SetIntrospectionFromToken(context.Context, *oidc.IntrospectionResponse, string, string, string) error {
	return errUnsupported()
}
func (s *storage) GetKeyByIDAndClientID(context.Context, string, string) (*jose.JSONWebKey, error) {
	return nil, errUnsupported()
}
func (s *storage) ValidateJWTProfileScopes(context.Context, string, []string) ([]string, error) {
	return nil, errUnsupported()
}
