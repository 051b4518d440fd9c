package protocol

import "testing"

func TestResponseMarshal(t *testing.T) {
	tests := []struct {
		name string
		resp Response
		want string
	}{
		{"hello without capabilities", Response{ID: "h", Type: TypeHello, Protocol: 1, Implementation: &Implementation{Name: "n", Version: "1", Language: "go"}},
			`{"id":"h","type":"hello","protocol":1,"implementation":{"name":"n","version":"1","language":"go"},"capabilities":[]}`},
		{"hello with an empty list", Response{ID: "h", Type: TypeHello, Protocol: 1, Capabilities: []string{}},
			`{"id":"h","type":"hello","protocol":1,"capabilities":[]}`},
		{"hello with capabilities", Response{ID: "h", Type: TypeHello, Protocol: 1, Capabilities: []string{"abort"}},
			`{"id":"h","type":"hello","protocol":1,"capabilities":["abort"]}`},
		{"other types omit it", Response{ID: "a", Type: TypeAbort}, `{"id":"a","type":"abort"}`},
		{"text written as it is", Response{ID: "r", Type: TypeResult, Result: &Result{Text: "a<b&c"}},
			`{"id":"r","type":"result","result":{"isError":false,"text":"a<b&c"}}`},
		{"cancelled", Response{ID: "r", Type: TypeResult, Cancelled: true}, `{"id":"r","type":"result","cancelled":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Marshal(tt.resp)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}
