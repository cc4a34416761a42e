package users

import (
	"net/http/httptest"
	"testing"
)

func TestKeyFromRequest(t *testing.T) {
	const key = "calq_k"
	tests := []struct {
		name    string
		headers map[string]string
		basic   []string // user, password: SetBasicAuth
		want    string
		ok      bool
	}{
		{"none", nil, nil, "", false},
		{"bearer", map[string]string{"Authorization": "Bearer " + key}, nil, key, true},
		{"bearer any case, spaces", map[string]string{"Authorization": "  bEARer   " + key + " "}, nil, key, true},
		{"bearer empty", map[string]string{"Authorization": "Bearer "}, nil, "", false},
		{"bearer alone", map[string]string{"Authorization": "Bearer"}, nil, "", false},
		{"x-api-key", map[string]string{"X-Api-Key": key}, nil, key, true},
		{"x-api-key spaces", map[string]string{"X-API-KEY": " " + key}, nil, key, true},
		{"x-api-key empty", map[string]string{"X-Api-Key": " "}, nil, "", false},
		{"basic password", nil, []string{"alice", key}, key, true},
		{"basic, any user name", nil, []string{"", key}, key, true},
		{"basic user name alone", nil, []string{key, ""}, key, true},
		{"basic empty", nil, []string{"", ""}, "", false},
		{"basic lower case", map[string]string{"Authorization": "basic YWxpY2U6Y2FscV9r"}, nil, key, true},
		{"basic broken base64", map[string]string{"Authorization": "Basic !!!"}, nil, "", false},
		{"bearer before x-api-key", map[string]string{"Authorization": "Bearer " + key, "X-Api-Key": "other"}, nil, key, true},
		{"basic before x-api-key", map[string]string{"X-Api-Key": "other"}, []string{"u", key}, key, true},
		{"other scheme: x-api-key", map[string]string{"Authorization": "Digest x=1", "X-Api-Key": key}, nil, key, true},
		{"other scheme alone", map[string]string{"Authorization": "Digest x=1"}, nil, "", false},
		{"token without scheme", map[string]string{"Authorization": key}, nil, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/forms/libreoffice/convert", nil)
			for k, v := range tt.headers {
				r.Header.Set(k, v)
			}
			if tt.basic != nil {
				r.SetBasicAuth(tt.basic[0], tt.basic[1])
			}
			got, ok := KeyFromRequest(r)
			if got != tt.want || ok != tt.ok {
				t.Errorf("KeyFromRequest(%v) = %q, %v, want %q, %v", r.Header, got, ok, tt.want, tt.ok)
			}
		})
	}
}
