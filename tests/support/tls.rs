//! A TLS server's side for the tests (a collector, an HTTP hook): a certificate authority
//! and a server certificate for 127.0.0.1, made at run time, the authority's certificate
//! written as PEM for the program under test to trust (or not).

use std::{
    net::TcpStream,
    path::{Path, PathBuf},
    sync::Arc,
};

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use rustls::{
    pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer},
    ServerConfig, ServerConnection, StreamOwned,
};

/// A TLS stream a test server reads and writes as it would a plain one.
pub type Stream = StreamOwned<ServerConnection, TcpStream>;

/// A certificate authority, and a server certificate for 127.0.0.1 it issued.
pub struct Authority {
    /// The authority's certificate (PEM), for the client to trust.
    pub certificate: PathBuf,
    server: Arc<ServerConfig>,
}

impl Authority {
    /// A new authority, its certificate written to `folder/ca.pem`; with `client`, the
    /// server asks for a client certificate the authority issued, and its certificate and
    /// key are written to `folder/client.pem` and `folder/client.key`.
    pub fn new(folder: &Path, client: bool) -> Authority {
        // ring, the provider of the program's own TLS client (ureq's `rustls` feature),
        // whose key exchanges it offers; rustls marks it deprecated only for lacking the
        // post-quantum ones, which a test server on loopback does not need.
        #[allow(deprecated)]
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("the CA's params");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca = CertifiedIssuer::self_signed(params, KeyPair::generate().expect("a CA key"))
            .expect("the CA's certificate");
        let certificate = folder.join("ca.pem");
        std::fs::write(&certificate, ca.pem()).expect("write the CA's certificate");
        let key = KeyPair::generate().expect("a server key");
        let server = CertificateParams::new(vec!["127.0.0.1".to_owned()])
            .expect("the server's params")
            .signed_by(&key, &ca)
            .expect("the server's certificate");
        let chain = vec![server.der().clone()];
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
        let builder = ServerConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .expect("TLS versions");
        let builder = if client {
            let client_key = KeyPair::generate().expect("a client key");
            let client_cert = CertificateParams::new(vec!["client".to_owned()])
                .expect("the client's params")
                .signed_by(&client_key, &ca)
                .expect("the client's certificate");
            std::fs::write(folder.join("client.pem"), client_cert.pem()).expect("write it");
            std::fs::write(folder.join("client.key"), client_key.serialize_pem())
                .expect("write its key");
            let mut roots = rustls::RootCertStore::empty();
            roots
                .add(CertificateDer::from(ca.der().to_vec()))
                .expect("the CA as a root");
            let verifier =
                rustls::server::WebPkiClientVerifier::builder_with_provider(roots.into(), provider)
                    .build()
                    .expect("a client verifier");
            builder.with_client_cert_verifier(verifier)
        } else {
            builder.with_no_client_auth()
        };
        let server = builder
            .with_single_cert(chain, key)
            .expect("the server's configuration");
        Authority {
            certificate,
            server: Arc::new(server),
        }
    }

    /// `stream` as the server's end of a TLS connection (the handshake happens on the first
    /// read or write).
    pub fn accept(&self, stream: TcpStream) -> Stream {
        let connection = ServerConnection::new(self.server.clone()).expect("a TLS connection");
        StreamOwned::new(connection, stream)
    }
}
