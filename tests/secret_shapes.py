"""Secret shapes seen in coding-agent sessions, as (name, text around it, the secret).

Every value is fake and built at run time by concatenation, so no literal in this file
looks like a real credential to a secret scanner. ``FILL`` makes values that are random
enough for entropy checks while being obviously made up. The table is shared by the
redaction tests, the end-to-end "never reaches the database" test and
``benchmarks/redact.py``.
"""

from __future__ import annotations

import base64

FILL = "Fa4k3Ex9Am7pLe2Qw8Zr5Ty1Ui6Op0Sd3Gh"
HEX = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"


def fill(n: int, alphabet: str = FILL) -> str:
    """``n`` characters of the fake filler (deterministic, high entropy, clearly fake)."""
    return (alphabet * (n // len(alphabet) + 1))[:n]


def _b64(n: int) -> str:
    """``n`` characters shaped like base64 key material, with ``/`` and ``+`` in it."""
    return fill(n - 2).replace("x", "/").replace("Q", "+") + "=="


def _urlencoded_b64(n: int) -> str:
    """``n`` bytes of fake key material as base64 in a URL (``%2B``, ``%2F``, ``%3D``)."""
    raw = base64.b64encode(fill(n).encode())
    return raw.decode().replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")


def _b64_of(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _pem(label: str) -> tuple[str, str]:
    body = "\n".join(fill(64) for _ in range(4))
    begin, end = "-----BEGIN " + label + "-----", "-----END " + label + "-----"
    return f"{begin}\n{body}\n{end}", body


def shapes() -> list[tuple[str, str, str]]:
    """(name, text containing the secret, the secret) for every shape redaction must catch."""
    out: list[tuple[str, str, str]] = []

    def add(name: str, template: str, secret: str) -> None:
        out.append((name, template.replace("{S}", secret), secret))

    def add_pem(name: str, template: str, label: str, escaped: bool = False) -> None:
        block, body = _pem(label)  # the key material is the secret, not its header
        block = block.replace("\n", "\\n") if escaped else block
        out.append((name, template.replace("{S}", block), body))

    add("openai_project_key", "export OPENAI_API_KEY={S}", "sk-" + "proj-" + fill(48))
    add("openai_legacy_key", "client = OpenAI(api_key='{S}')", "sk-" + fill(48))
    add("openai_service_account", "key {S} in CI", "sk-" + "svcacct-" + fill(40))
    add("anthropic_key", "ANTHROPIC_API_KEY={S} claude", "sk-" + "ant-api03-" + fill(60))
    add("github_classic_pat", "git push https://{S}@github.com/o/r", "gh" + "p_" + fill(36))
    add("github_oauth", "token: {S}", "gh" + "o_" + fill(36))
    add("github_app_token", "x-access-token {S}", "gh" + "s_" + fill(36))
    add("github_fine_grained_pat", "use {S} for the API", "github" + "_pat_" + fill(82))
    add("gitlab_pat", "PRIVATE-TOKEN: {S}", "gl" + "pat-" + fill(20))
    add("aws_access_key_id", "aws_access_key_id = {S}", "AK" + "IA" + fill(16).upper())
    add("aws_secret_access_key", "aws_secret_access_key = {S}", _b64(40))
    add("aws_secret_env", "export AWS_SECRET_ACCESS_KEY={S}", _b64(40))
    add(
        "azure_storage_account_key",
        "DefaultEndpointsProtocol=https;AccountName=demo;AccountKey={S};EndpointSuffix=core",
        _b64(88),
    )
    add(
        "azure_shared_access_key",
        "Endpoint=sb://demo.example/;SharedAccessKeyName=root;SharedAccessKey={S}",
        _b64(44),
    )
    add("google_api_key", "maps?key={S}&q=x", "AI" + "za" + fill(35))
    add("google_oauth_secret", '"client_secret": "{S}"', "GOC" + "SPX-" + fill(28))
    add("slack_bot_token", "SLACK_TOKEN={S}", "xo" + "xb-" + "9081726354-" + fill(24))
    add("slack_user_token", "slack {S}", "xo" + "xp-" + "5463728190-" + fill(30))
    add("slack_app_token", "app token {S} here", "xa" + "pp-1-" + "A0" + fill(9) + "-" + fill(40))
    add("slack_webhook", "curl -X POST https://hooks." + "slack.com/services/{S} -d x", fill(30))
    add("stripe_live_secret", "STRIPE_KEY={S}", "sk" + "_live_" + fill(24))
    add("stripe_restricted", "use {S}", "rk" + "_live_" + fill(24))
    add("stripe_webhook_secret", "whsec {S}", "wh" + "sec_" + fill(32))
    add("huggingface_token", "huggingface-cli login --token {S}", "h" + "f_" + fill(34))
    add("npm_token", "//registry.npmjs.org/:_authToken={S}", "np" + "m_" + fill(36))
    add("pypi_token", "password = {S}", "pyp" + "i-AgEIcHlwaS5vcmc" + fill(60))
    jwt = "ey" + "JhbGciOiJIUzI1NiJ9." + "ey" + "J" + fill(40) + "." + fill(43)
    add("jwt", "cookie session={S};", jwt)
    add("bearer_header", "Authorization: Bearer {S}", fill(40))
    add(
        "basic_auth_header",
        "-H 'Authorization: Basic {S}'",
        base64.b64encode(b"deploy:" + fill(14).encode()).decode(),
    )
    add("curl_user_password", "curl -u admin:{S} https://x.example", "Pw" + fill(10))
    add_pem("rsa_private_key", "key:\n{S}\nend", "RSA " + "PRIVATE KEY")
    add_pem("openssh_private_key", "{S}", "OPENSSH " + "PRIVATE KEY")
    add_pem("pkcs8_private_key", '{"private_key": "{S}"}', "PRIVATE " + "KEY", escaped=True)
    add_pem("ec_private_key", "{S}", "EC " + "PRIVATE KEY")
    add_pem("encrypted_private_key", "{S}", "ENCRYPTED " + "PRIVATE KEY")
    add_pem("pgp_private_key_block", "gpg export:\n{S}", "PGP " + "PRIVATE KEY BLOCK")
    add("url_password", "DATABASE_URL=postgres://app:{S}@db.internal:5432/app", "Pw" + fill(12))
    add("url_password_empty_user", "REDIS_URL=redis://:{S}@cache:6379/0", "Pw" + fill(10))
    add("url_password_with_slash", "mysql://root:{S}@10.0.0.5/db", "ab/" + fill(9))
    add("url_password_with_at", "mongodb://admin:{S}@mongo.local/x", "p@" + fill(9))
    add("sentry_dsn", "SENTRY_DSN=https://{S}@o12345.ingest.sentry.io/678", HEX)
    add("pgpassword_short", "PGPASSWORD={S} psql -h db", "abc123")
    add("export_db_password", "export DB_PASSWORD={S}", "s3cr3t!")
    add("yaml_password", "  password: {S}\n  user: app", "hunter2")
    add("json_password", '{"user": "app", "password": "{S}"}', "hunter2")
    add("password_with_spaces", 'password = "{S}"', "correct horse battery")
    add("cli_password_flag", "mysql --password={S} -u root", "Tr0ub4d0r")
    add("mysql_p_flag", "mysql -u root -p{S} app", "Tr0ub4d0r")
    add("netrc_password", "machine api.example login me password {S}", "n3trc" + fill(6))
    add("generic_api_key", "API_KEY={S}", fill(32))
    add("generic_secret_json", '{"client_secret": "{S}"}', fill(40))
    add("generic_token_yaml", "auth_token: {S}", fill(28))
    add("discord_bot_token", "DISCORD_TOKEN={S}", "MTA" + fill(21) + "." + fill(6) + "." + fill(27))
    add("telegram_bot_token", "bot123456789:{S}/sendMessage", "AA" + fill(33))
    add("sendgrid_key", "sendgrid {S}", "SG." + fill(22) + "." + fill(43))
    add("twilio_api_key", "twilio {S}", "SK" + HEX)
    add("mailchimp_key", "mailchimp {S}", HEX + "-us12")
    add("digitalocean_token", "doctl auth init -t {S}", "dop" + "_v1_" + HEX + HEX)
    add("shopify_token", "X-Shopify-Access-Token: {S}", "shp" + "at_" + HEX)
    add("vault_token", "VAULT_TOKEN={S} vault kv get", "hv" + "s." + fill(90))
    add("databricks_token", "databricks {S}", "dap" + "i" + HEX)
    add("groq_key", "groq {S}", "gs" + "k_" + fill(52))
    add("docker_auth", '{"auths": {"ghcr.io": {"auth": "{S}"}}}', _b64(40))
    # signatures of pre-signed URLs and SAS tokens
    blob = "https://acct.blob.core.windows." + "net/c/report.csv"
    add(
        "azure_sas_url",
        f"az storage blob download --blob-url '{blob}?sv=2022-11-02&se=2026-04"
        "-01T00%3A00Z&sr=b&sp=r&sig={S}'",
        _urlencoded_b64(32),
    )
    add(
        "azure_sas_connection_string",
        "BlobEndpoint=https://acct.blob.core.windows.net/;"
        "SharedAccessSignature=sv=2022-11-02&ss=b&srt=sco&sp=rl&sig={S}",
        _urlencoded_b64(32),
    )
    add(
        "azure_servicebus_sas_token",
        "Authorization: SharedAccessSignature sr=sb%3A%2F%2Fns."
        "servicebus.windows.net&sig={S}&se=1767225600&skn=send",
        _urlencoded_b64(32),
    )
    add(
        "s3_presigned_url",
        "curl 'https://bkt.s3.amazonaws.com/k.tgz?X-Amz-Algorithm=AWS4-HMAC"
        "-SHA256&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature={S}'",
        HEX + HEX,
    )
    add(
        "s3_presigned_session_token",
        "https://bkt.s3.amazonaws.com/k?X-Amz-Security-Token={S}&X-Amz-Expires=300",
        _urlencoded_b64(160),
    )
    add(
        "gcs_signed_url",
        "wget https://storage.googleapis.com/b/o.bin?X-Goog-Algorithm=GOOG4-"
        "RSA-SHA256&X-Goog-Expires=900&X-Goog-Signature={S}",
        HEX * 8,
    )
    add(
        "cloudfront_signed_url",
        "https://d111.cloudfront.net/v.mp4?Expires=1767225600&"
        "Signature={S}&Key-Pair-Id=K2JCJMDEHXQW5F",
        fill(120).replace("Q", "~"),
    )
    # base64 that decodes to a key
    add("base64_piped_key", "echo {S} | base64 -d", _b64_of("sk-" + "proj-" + fill(48)))
    add(
        "base64_decode_flag",
        "echo '{S}' | base64 --decode > ~/.npmrc",
        _b64_of("//registry.npmjs.org/:_authToken=np" + "m_" + fill(36)),
    )
    add(
        "base64_in_python",
        "token = base64.b64decode('{S}').decode()",
        _b64_of("gh" + "p_" + fill(36)),
    )
    add(
        "base64_env_blob",
        "printf %s {S} | base64 --decode >> .env",
        _b64_of("AWS_ACCESS_KEY_ID=AK" + "IA" + fill(16).upper() + "\n"),
    )
    ssh_key, _body = _pem("OPENSSH " + "PRIVATE KEY")
    add("base64_private_key", "echo {S} | base64 -d > ~/.ssh/id_ed25519", _b64_of(ssh_key))
    # passwords given on a command line
    add("sshpass_password", "sshpass -p {S} ssh deploy@10.0.0.7 uptime", "Ss" + fill(10))
    add("sshpass_quoted_password", "sshpass -p '{S}' scp app.tgz deploy@web:", "Sq" + fill(11))
    add("mysql_quoted_password", 'mysql --password "{S}" -u root app', "My" + fill(9))
    add("mariadb_p_flag", "mariadb -uroot -p{S} app < dump.sql", "Ma" + fill(9))
    add("curl_user_quoted", "curl -u 'admin:{S}' https://x.example/api", "Cu" + fill(10))
    add("httpie_auth", "http --auth admin:{S} https://api.example/me", "Ht" + fill(10))
    add("sudo_stdin_password", "echo {S} | sudo -S systemctl restart app", "Su" + fill(9))
    add("redis_cli_password", "redis-cli -h cache -a {S} ping", "Re" + fill(12))
    add("docker_login_password", "docker login -u ci -p {S} registry.example", "Dl" + fill(12))
    add(
        "keytool_storepass",
        "keytool -importcert -file ca.pem -storepass {S} -keystore t.jks",
        "Ks" + fill(10),
    )
    add("ldap_bind_password", "ldapsearch -x -D cn=admin,dc=ex -w {S} -b dc=ex", "Ld" + fill(10))
    add("smbclient_password", "smbclient //files/share -U admin%{S}", "Sm" + fill(10))
    add("zip_password", "zip -P {S} backup.zip db.sql", "Zp" + fill(10))
    return out


def survives(redacted: str, secret: str) -> bool:
    """True when any 8-character piece of ``secret`` (the whole of a shorter one) is still
    in ``redacted``: a secret cut in half and left half visible counts as leaked."""
    n = min(len(secret), 8)
    pieces = (secret[i : i + n] for i in range(len(secret) - n + 1))
    return any(p in redacted for p in pieces if "\n" not in p and "\\n" not in p)
