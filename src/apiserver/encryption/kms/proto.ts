// The reference's KMS v2 API, embedded (protobufjs JSON form) so no .proto file has to ship
// beside the compiled code. Equivalent to:
//
//   syntax = "proto3";
//   package v2;
//   service KeyManagementService {
//     rpc Status(StatusRequest) returns (StatusResponse) {}
//     rpc Decrypt(DecryptRequest) returns (DecryptResponse) {}
//     rpc Encrypt(EncryptRequest) returns (EncryptResponse) {}
//   }
//   message StatusRequest {}
//   message StatusResponse { string version = 1; string healthz = 2; string key_id = 3; }
//   message DecryptRequest {
//     bytes ciphertext = 1; string uid = 2; string key_id = 3; map<string, bytes> annotations = 4;
//   }
//   message DecryptResponse { bytes plaintext = 1; }
//   message EncryptRequest { bytes plaintext = 1; string uid = 2; }
//   message EncryptResponse {
//     bytes ciphertext = 1; string key_id = 2; map<string, bytes> annotations = 3;
//   }
import type * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

const KMS_V2_JSON = {
  nested: {
    v2: {
      nested: {
        KeyManagementService: {
          methods: {
            Status: { requestType: 'StatusRequest', responseType: 'StatusResponse' },
            Decrypt: { requestType: 'DecryptRequest', responseType: 'DecryptResponse' },
            Encrypt: { requestType: 'EncryptRequest', responseType: 'EncryptResponse' },
          },
        },
        StatusRequest: { fields: {} },
        StatusResponse: {
          fields: {
            version: { type: 'string', id: 1 },
            healthz: { type: 'string', id: 2 },
            key_id: { type: 'string', id: 3 },
          },
        },
        DecryptRequest: {
          fields: {
            ciphertext: { type: 'bytes', id: 1 },
            uid: { type: 'string', id: 2 },
            key_id: { type: 'string', id: 3 },
            annotations: { keyType: 'string', type: 'bytes', id: 4 },
          },
        },
        DecryptResponse: { fields: { plaintext: { type: 'bytes', id: 1 } } },
        EncryptRequest: {
          fields: { plaintext: { type: 'bytes', id: 1 }, uid: { type: 'string', id: 2 } },
        },
        EncryptResponse: {
          fields: {
            ciphertext: { type: 'bytes', id: 1 },
            key_id: { type: 'string', id: 2 },
            annotations: { keyType: 'string', type: 'bytes', id: 3 },
          },
        },
      },
    },
  },
};

export interface StatusResponse {
  version: string;
  healthz: string;
  key_id: string;
}
export interface DecryptRequest {
  ciphertext: Uint8Array;
  uid: string;
  key_id: string;
  annotations: Record<string, Uint8Array>;
}
export interface DecryptResponse {
  plaintext: Uint8Array;
}
export interface EncryptRequest {
  plaintext: Uint8Array;
  uid: string;
}
export interface EncryptResponse {
  ciphertext: Uint8Array;
  key_id: string;
  annotations: Record<string, Uint8Array>;
}

/**
 * The KeyManagementService definition, for clients (makeGenericClientConstructor) and test servers.
 */
export function kmsServiceDefinition(): grpc.ServiceDefinition {
  // Our own descriptor (above) as protobufjs JSON; proto-loader types it as protobufjs's
  // INamespace.
  const pkg = protoLoader.fromJSON(
    KMS_V2_JSON as unknown as Parameters<typeof protoLoader.fromJSON>[0],
    { keepCase: true, longs: String, defaults: true },
  );
  const svc = pkg['v2.KeyManagementService'];
  if (svc === undefined || !('Status' in svc)) throw new Error('KMS v2 service definition missing');
  return svc;
}
