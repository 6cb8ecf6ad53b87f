"""Secret shapes no redaction rule was written or tuned against: the held-out check.

``tests/secret_shapes.py`` is the table the rules were written for (the tests require all
of it). This one was written afterwards, from how the same secrets appear in other tools
and other spellings, and is only measured (``benchmarks/redact.py``): a miss here is
reported, not fixed by a rule made for this very line (that would make it a tuning set).
Values are fake and built at run time, as in the tests' table.
"""

from __future__ import annotations

import base64
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from secret_shapes import HEX, fill  # noqa: E402


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _sas() -> str:
    return _b64(fill(32)).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")


def shapes() -> list[tuple[str, str, str]]:
    """(name, text containing the secret, the secret)."""
    pw = "Hd" + fill(11)
    key = "sk-" + "proj-" + fill(40)
    out = [
        (
            "az_sas_token_flag",
            f"az storage blob list -c logs --sas-token 'sv=2023-01-03&ss=b&sig={_sas()}'",
            _sas(),
        ),
        (
            "azcopy_url",
            f"azcopy copy ./a 'https://x.blob.core.windows.net/c?sp=rw&sig={_sas()}'",
            _sas(),
        ),
        (
            "presign_output",
            "$ aws s3 presign s3://b/k\nhttps://b.s3.amazonaws.com/k?X-Amz-"
            f"Credential=x&X-Amz-Signature={HEX}{HEX}",
            HEX + HEX,
        ),
        (
            "gsutil_signurl",
            "gsutil signurl key.json gs://b/o\nURL: https://storage.googleapis"
            f".com/b/o?x-goog-signature={HEX * 4}&x-goog-date=20260301",
            HEX * 4,
        ),
        ("here_string_b64", f"base64 -d <<< {_b64(key)} > key.txt", _b64(key)),
        (
            "python_b64_double_quotes",
            f"python3 -c \"import base64;print(base64.b64decode('{_b64(key)}'))\"",
            _b64(key),
        ),
        ("node_buffer_b64", f"Buffer.from('{_b64(key)}', 'base64').toString()", _b64(key)),
        ("powershell_b64", f"[Convert]::FromBase64String('{_b64(key)}')", _b64(key)),
        ("js_atob", f"const k = atob('{_b64(key)}')", _b64(key)),
        ("openssl_b64", f"echo {_b64(key)} | openssl base64 -d", _b64(key)),
        ("sshpass_glued", f"sshpass -p{pw} rsync -a ./ web:/srv", pw),
        ("sshpass_after_v", f"sshpass -v -p '{pw}' ssh root@db", pw),
        ("mysql_long_line", f"mysql -h db.internal -P 3306 -u app -p{pw} -e 'select 1'", pw),
        ("mysqldump_pipe", f"mysqldump -uroot -p'{pw}' app | gzip > app.sql.gz", pw),
        ("sudo_stdin_printf", f"printf '%s\\n' '{pw}' | sudo -S reboot", pw),
        ("sudo_k_stdin", f"echo '{pw}' | sudo -kS apt-get update", pw),
        ("podman_login", f"podman login quay.io --username bot --password {pw}", pw),
        ("wget_password", f"wget --user=bot --password={pw} https://x.example/f", pw),
        ("lftp_user_comma", f"lftp -u bot,{pw} sftp://files.example", pw),
        ("mongosh_password", f"mongosh 'mongodb://db:27017' -u admin -p {pw}", pw),
        ("psql_conninfo", f"psql 'host=db user=app password={pw} dbname=app'", pw),
        ("rclone_obscured_pass", f"rclone config create s sftp host h user u pass {pw}", pw),
        ("curl_user_long_flag", f"curl --user 'ci:{pw}' https://x.example", pw),
        ("basic_auth_proxy", "Proxy-Authorization: Basic " + _b64("ci:" + pw), _b64("ci:" + pw)),
    ]
    return out
