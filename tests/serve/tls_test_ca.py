"""A certificate authority made for one test run (openssl), and what the tests' TLS peers use: a proxy
certificate for 127.0.0.1 signed by it, and a self-signed one nobody trusts."""
import subprocess
from pathlib import Path


def _openssl(*arguments, cwd):
    subprocess.run(["openssl", *arguments], cwd=cwd, check=True, capture_output=True)


def make_test_certificates(directory: Path) -> Path:
    """Writes ca.pem/ca.key, proxy.pem/proxy.key (CN and SAN 127.0.0.1, signed by the CA) and bad.pem/bad.key
    (self-signed) into `directory`, and returns it."""
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
             "-subj", "/CN=e2beval e2b test CA", cwd=directory)
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "proxy.key", "-out", "proxy.csr", "-subj", "/CN=127.0.0.1",
             cwd=directory)
    (directory / "proxy.ext").write_text("subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n"
                                         "keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n")
    _openssl("x509", "-req", "-in", "proxy.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "proxy.pem",
             "-days", "2", "-extfile", "proxy.ext", cwd=directory)
    # A certificate nobody trusts, for the bad-certificate proxy.
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "bad.key", "-out", "bad.pem", "-days", "2",
             "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", cwd=directory)
    return directory
