import { describe, expect, it } from 'vitest';
import { isSensitiveName, nameWords } from '../../../../functions/core/redaction/secret-names.js';
import {
  argumentsHoldCredential,
  containsCredential,
  REDACTED,
  redactArguments,
  redactCredentials,
  VALUE_RULES,
} from '../../../../functions/core/redaction/secret-values.js';
import { redactText } from '../../../../functions/core/redaction/secrets.js';
import { NORMALISED_NAMES, newCore, VALUE_CATEGORIES } from '../../../helpers/canary-generator.js';

describe('credentials recognised by value', () => {
  it.each(Object.entries(VALUE_CATEGORIES))(
    '%s: found alone and inside text, and removed',
    (_category, make) => {
      const core = newCore();
      const value = make(core);
      expect(containsCredential(value)).toBe(true);
      expect(containsCredential(`deployed with ${value} yesterday`)).toBe(true);
      expect(redactCredentials(value)).not.toContain(core);
      expect(redactText(`line one\n  ${value}\nline three`)).not.toContain(core);
    },
  );

  it('keeps the readable parts: scheme, user and host of a URL, the header name', () => {
    expect(redactCredentials('postgres://app:s3cr3t-pw@db.internal:5432/orders')).toBe(
      `postgres://app:${REDACTED}@db.internal:5432/orders`,
    );
    expect(redactCredentials('X-Api-Key: abcdef123456')).toBe(`X-Api-Key: ${REDACTED}`);
    expect(redactCredentials('Server=db;Password=hunter22;Database=app')).toBe(
      `Server=db;Password=${REDACTED};Database=app`,
    );
    expect(redactCredentials('https://api.example.com/v1?api_key=abc123def&page=2')).toBe(
      `https://api.example.com/v1?api_key=${REDACTED}&page=2`,
    );
  });

  it('reads names and values in escaped JSON, command-line options and YAML block scalars', () => {
    for (const [text, kept] of [
      ['curl -d "{\\"password\\":\\"CNRYOPT1x\\"}"', 'curl -d "{\\"password\\":'],
      ['export APP_TOKEN=\\"CNRYOPT1x\\" next', 'export APP_TOKEN='],
      ['/srv --db-password=CNRYOPT1x --port 80', '/srv --db-password='],
      ['/srv --api-token CNRYOPT1x --port 80', '/srv --api-token '],
      ['"command": ["serve", "--api-key", "CNRYOPT1x"]', '"command": ["serve", "--api-key", '],
      ["args: ['--client-secret', 'CNRYOPT1x']", "args: ['--client-secret', "],
    ] as const) {
      const redacted = redactText(text);
      expect(redacted, text).not.toContain('CNRYOPT1x');
      expect(redacted, text).toContain(`${kept}${REDACTED}`);
    }
    // A YAML block scalar under a secret name: the lines under it, not the indicator, are the secret.
    expect(redactText('db:\n  password: |\n    CNRYOPT1x\n    more\n  port: 5432')).toBe(
      `db:\n  password: ${REDACTED}\n  port: 5432`,
    );
    expect(redactText('token: >-\n  CNRYOPT1x\nnext: 1')).toBe(`token: ${REDACTED}\nnext: 1`);
    // Options that name no secret, or that describe one (a file, a lifetime), and a name's inner dash.
    expect(redactText('--password-file /run/pw --token-ttl 3600 --region eu-west-1')).not.toContain(REDACTED);
    expect(redactText('x-api-key=abc123def')).toBe(`x-api-key=${REDACTED}`);
  });

  it('reads hash-rocket pairs and XML elements named like secrets', () => {
    for (const [text, kept] of [
      ["config => { password => 'CNRYXML1x', port => 5432 }", 'config => { password => '],
      ['$db = array("db_password" => "CNRYXML1x");', '$db = array("db_password" => '],
      ['<datasource><password>CNRYXML1x</password><user>app</user></datasource>', '<datasource><password>'],
      ['<db:Password type="plain">CNRYXML1x</db:Password>', '<db:Password type="plain">'],
    ] as const) {
      const redacted = redactText(text);
      expect(redacted, text).not.toContain('CNRYXML1x');
      expect(redacted, text).toContain(`${kept}${REDACTED}`);
    }
    // Elements that name no secret, and the closing tag, stay.
    expect(redactText('<user>app</user><password>x</password>')).toBe(
      `<user>app</user><password>${REDACTED}</password>`,
    );
    expect(redactText('<token_ttl>3600</token_ttl> region => "eu-west-1"')).not.toContain(REDACTED);
  });

  it('still redacts a colon value that is one token, and any equals value', () => {
    expect(redactText('password: letmein')).toBe(`password: ${REDACTED}`);
    expect(redactText('token: abcdefgh, region: eu-west-1')).toBe(`token: ${REDACTED}, region: eu-west-1`);
    expect(redactText('db_password=letmein and more')).toBe(`db_password=${REDACTED} and more`);
    expect(redactText('"api_key": "letmein now"')).toBe(`"api_key": ${REDACTED}`);
  });

  it('is idempotent: redacted and hashed values are not redacted again', () => {
    const once = redactText('password = "pw-1" token: (sensitive:0a1b2c3d) Bearer abcdefghijkl');
    expect(redactText(once)).toBe(once);
    expect(once).toContain('(sensitive:0a1b2c3d)');
  });

  it.each([
    'arn:aws:iam::123456789012:role/driftwatch-read',
    'eu-west-1',
    'https://example.com/path?page=2',
    '10.0.0.0/16',
    't3.micro',
    'da39a3ee5e6b4b0d3255bfef95601890afd80709',
    '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject"}]}',
    'Managed by Terraform',
    'payments-prod-orders.fifo',
    'sg-0123456789abcdef0',
    'the token is rotated monthly by the pipeline',
    'validating provider credentials: retrieving caller identity from STS: operation error',
    'Error: configuring Terraform AWS Provider: no valid credential sources found',
    // ARNs name their resource type after a colon: `secret:` or `token:` there is no name = value.
    // (Shapes of `terraform show -json` of a plan of aws_secretsmanager_secret_version, provider 5.100.)
    'arn:aws:secretsmanager:eu-west-1:123456789012:secret:wo-secret-lZKciI',
    'arn:aws:secretsmanager:eu-west-1:123456789012:secret:wo-secret-lZKciI|terraform-20261202175333132000000003',
    '{"Statement":[{"Action":"secretsmanager:GetSecretValue","Effect":"Allow","Resource":"arn:aws-us-gov:secretsmanager:us-gov-west-1:123456789012:secret:db-AbCdEf"}]}',
    '[{"name":"DB","valueFrom":"arn:aws:secretsmanager:eu-west-1:123456789012:secret:db-AbCdEf"}]',
    // A file named after secrets, with the line and column of an error in it.
    'driftwatch: reg/my-secrets.yaml:3:10 version: must be 1',
    'api-tokens.json:12: Unexpected token',
  ])('leaves ordinary values alone: %s', (value) => {
    expect(containsCredential(value)).toBe(false);
    expect(redactText(value)).toBe(value);
  });

  it.each([
    ['secrets.env:hunter2x', 'secrets.env:(redacted)'],
    ['password:1234', 'password:(redacted)'],
    ['password=12:30', 'password=(redacted)'],
  ])('still redacts a secret after a file-like or numeric-looking name: %s', (text, redacted) => {
    expect(redactText(text)).toBe(redacted);
  });

  it('tries the rules without hints on any value with a long enough run, wherever the run starts', () => {
    // aws-secret-access-key has no literal hint: the prefilter must let such values through.
    const key = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    expect(containsCredential(key)).toBe(true);
    expect(containsCredential(`rotated ${key}`)).toBe(true);
    expect(containsCredential(`${key} rotated`)).toBe(true);
    expect(containsCredential(`a b c d e f g h i j k l m n ${key}`)).toBe(true);
    expect(containsCredential(`${key.slice(0, 20)} ${key.slice(20)}`)).toBe(false);
  });

  it('every rule has an id and a global pattern (matchAll and replace rely on it)', () => {
    for (const rule of VALUE_RULES) {
      expect(rule.id).toMatch(/^[a-z0-9-]+$/);
      expect(rule.pattern.flags).toContain('g');
    }
  });

  it('stays linear on long input without separators (no backtracking blow-up)', () => {
    for (const text of ['x'.repeat(200_000), 'a:'.repeat(100_000), 'Ab1/'.repeat(50_000)]) {
      expect(redactText(text).length).toBeGreaterThan(0);
    }
  });
});

describe('passwords given to well-known tools as a short option', () => {
  // The option (`-p`, `-a`, `-u`) names no secret: the tool does.
  it.each([
    ['mysql -uroot -pCNRYCMD1x -h db', 'mysql -uroot -p'],
    ['mysql\t-uroot\t-pCNRYCMD1x', 'mysql\t-uroot\t-p'],
    ['mysqldump -h db -uroot -pCNRYCMD1x --all-databases', 'mysqldump -h db -uroot -p'],
    ['mysqladmin -uroot -pCNRYCMD1x status', 'mysqladmin -uroot -p'],
    ["mysql -uroot -p'CNRYCMD1x xyz' app", 'mysql -uroot -p'],
    ['mariadb-dump -uroot -pCNRYCMD1x app', 'mariadb-dump -uroot -p'],
    ['sshpass -pCNRYCMD1x ssh deploy@host', 'sshpass -p'],
    ['sshpass -p CNRYCMD1x ssh deploy@host', 'sshpass -p '],
    ['redis-cli -h cache -a CNRYCMD1x ping', 'redis-cli -h cache -a '],
    ['redis-cli -a "CNRYCMD1x" ping', 'redis-cli -a '],
    ['curl -fsS -u deploy:CNRYCMD1x https://x', 'curl -fsS -u deploy:'],
    ['curl --user "deploy:CNRYCMD1x" https://x', 'curl --user "deploy:'],
    ['mongosh -u admin -p CNRYCMD1x', 'mongosh -u admin -p '],
    ['docker login -u ci -p CNRYCMD1x registry.example.com', 'docker login -u ci -p '],
    ['sqlcmd -S db -U sa -P CNRYCMD1x -Q "SELECT 1"', 'sqlcmd -S db -U sa -P '],
    ['ldapsearch -x -D cn=admin -w CNRYCMD1x -b dc=x', 'ldapsearch -x -D cn=admin -w '],
    ['smbclient //fs/share -U svc%CNRYCMD1x', 'smbclient //fs/share -U svc%'],
    // Wherever the command runs: a script, sudo, sh -c, a systemd unit, a YAML list, a sentence.
    ['#!/bin/bash\nset -e\nmkdir -p /backup\nmysqldump -uroot -pCNRYCMD1x app | gzip', 'mysqldump -uroot -p'],
    ['sudo -u root mysql -pCNRYCMD1x', 'sudo -u root mysql -p'],
    ['ExecStart=/usr/bin/redis-cli -a CNRYCMD1x ping', 'redis-cli -a '],
    ['runcmd:\n  - mysql -uroot -pCNRYCMD1x -e "CREATE DATABASE app"', '  - mysql -uroot -p'],
    ['docker exec -it db mysql -uroot -pCNRYCMD1x', 'db mysql -uroot -p'],
    ['Error: command failed: mysql -uroot -pCNRYCMD1x app', 'mysql -uroot -p'],
    // A list of arguments, as JSON and as JSON inside a string (container_definitions).
    ['["mysql","-uroot","-pCNRYCMD1x","app"]', '["mysql","-uroot","-p'],
    ['["sshpass", "-p", "CNRYCMD1x", "ssh", "host"]', '["sshpass", "-p", '],
    ['["/bin/sh","-c","mysqldump -uroot -pCNRYCMD1x app > /b.sql"]', 'mysqldump -uroot -p'],
    ['[{\\"command\\":[\\"redis-cli\\",\\"-a\\",\\"CNRYCMD1x\\",\\"ping\\"]}]', '\\"-a\\",'],
    // A long option with one dash (Go's flag package, Java's keytool).
    ['keytool -importkeystore -srcstorepass CNRYCMD1x', 'keytool -importkeystore -srcstorepass '],
    ['influx -username admin -password CNRYCMD1x', 'influx -username admin -password '],
    // Positional passwords, archives, accounts.
    ['htpasswd -bc /etc/nginx/.htpasswd admin CNRYCMD1x', 'htpasswd -bc /etc/nginx/.htpasswd admin '],
    ['htpasswd -nbB admin CNRYCMD1x', 'htpasswd -nbB admin '],
    ['rabbitmqctl add_user admin CNRYCMD1x', 'rabbitmqctl add_user admin '],
    ['aws configure set aws_secret_access_key CNRYCMD1x', 'aws configure set aws_secret_access_key '],
    ['az login --service-principal -u app -p CNRYCMD1x --tenant t', '-u app -p '],
    ['zip -P CNRYCMD1x backup.zip dump.sql', 'zip -P '],
    ['7z a -pCNRYCMD1x backup.7z dump.sql', '7z a -p'],
    // Piped to a command that reads it from standard input.
    ['echo "CNRYCMD1x" | docker login -u ci --password-stdin reg', 'echo '],
    ['echo root:CNRYCMD1x | chpasswd', 'echo '],
    ["printf '%s' CNRYCMD1x | sudo passwd --stdin root", "printf '%s' "],
    // SQL and Oracle's user/password.
    ["CREATE USER 'app'@'%' IDENTIFIED BY 'CNRYCMD1x';", 'IDENTIFIED BY '],
    ['ALTER USER app IDENTIFIED BY CNRYCMD1x;', 'IDENTIFIED BY '],
    ["ALTER ROLE app WITH LOGIN PASSWORD 'CNRYCMD1x';", 'PASSWORD '],
    ['jdbc:oracle:thin:app/CNRYCMD1x@//db:1521/ORCL', 'jdbc:oracle:thin:app/'],
    ['sqlplus -s app/CNRYCMD1x@db @run.sql', 'sqlplus -s app/'],
    ["SET PASSWORD FOR app = PASSWORD('CNRYCMD1x');", 'PASSWORD('],
    // .netrc entries and configuration files' `name value` lines (redis.conf, keepalived).
    ['machine git.example.com login deploy password CNRYCMD1x', 'login deploy password '],
    ['machine git.example.com\n  login deploy\n  password CNRYCMD1x\n', '  password '],
    ['bind 0.0.0.0\nrequirepass CNRYCMD1x\nport 6379\n', 'requirepass '],
    ['vrrp_instance VI_1 {\n  authentication {\n    auth_pass CNRYCMD1x\n  }\n}', 'auth_pass '],
    ['daemonize yes\nmasterauth "CNRYCMD1x xyz"\n', 'masterauth '],
    // A configuration file's line runs to its end: INI, .properties and YAML plain scalars keep
    // the spaces of a passphrase (`password: correct horse…` was prose, `= correct horse…` one word).
    ['[db]\nhost = db\npassword = correct CNRYCMD1x battery staple\nport = 5432\n', 'password = '],
    ['db:\n  host: x\n  password: correct CNRYCMD1x battery staple\n  port: 5432\n', '  password: '],
    ['db.user=app\ndb.password=correct CNRYCMD1x staple\n', 'db.password='],
    ['users:\n  - password: two CNRYCMD1x words # rotated\n', '  - password: '],
    // PostgreSQL password files (~/.pgpass): host:port:database:user:password, port or `*`.
    ['db.internal:5432:app:deploy:CNRYCMD1x', 'db.internal:5432:app:deploy:'],
    ['echo "*:*:*:replicator:CNRYCMD1x" > ~/.pgpass', 'echo "*:*:*:replicator:'],
    ['10.0.0.5:6432:*:app:CNRYCMD1x\nlocalhost:5432:x:y:z', '10.0.0.5:6432:*:app:'],
    // Windows accounts made in user_data: `net user NAME PASSWORD /add`.
    ['net user svc_backup CNRYCMD1x /add /y', 'net user svc_backup '],
    ['<powershell>NET USER Administrator "CNRYCMD1x" /ADD</powershell>', 'NET USER Administrator '],
    // An ODBC value in braces, which may hold `;`.
    ['Driver={ODBC Driver 18};Uid=app;Pwd={a;CNRYCMD1x};Db=x', 'Pwd='],
  ])('%s', (text, kept) => {
    const redacted = redactText(text);
    expect(redacted).not.toContain('CNRYCMD1x');
    expect(redacted).toContain(`${kept}${REDACTED}`);
    expect(containsCredential(text)).toBe(true);
    expect(redactText(redacted)).toBe(redacted);
  });

  it.each([
    'mkdir -p /var/lib/app',
    'docker run -d -p 80:80 -e MODE=x nginx',
    'docker run --name mongo -p 27017:27017 mongo:6',
    'docker run --name=mysql -d -p 3306:3306 mysql:8',
    '["docker","run","--name","mongo","-p","27017:27017","mongo"]',
    'ssh -p 2222 deploy@bastion',
    'sshpass -f /run/pw ssh -p 2222 deploy@bastion',
    'sshpass -e ssh -p 2222 deploy@bastion',
    'mysql -h db -P 3306 -u app -p app_db',
    '["mysql","-h","db","-p","app_db"]',
    'apt-get install -y mysql-client && mkdir -p /srv',
    'yum install -y mysql; mkdir -p /srv',
    'curl -sS https://get.example.com | sh -s -- -p 8080',
    'docker login -u ci --password-stdin registry.example.com',
    'terraform -chdir=infra plan -lock-timeout 5m',
    'echo "$REGISTRY_PASSWORD" | docker login -u ci --password-stdin reg',
    'resources identified by their tag',
    'sqlplus -s / as sysdba',
    'jdbc:oracle:thin:@//db:1521/ORCL',
    'zip -r backup.zip /srv',
    'Port 22\nPasswordAuthentication no\nPermitRootLogin no\n',
    'auth required pam_env.so\npassword required pam_unix.so\n',
    'line one\ntoken expired\n',
    // Lines of several words after a name that is no secret's, or where no line starts.
    'password_policy: minimum length twelve\nport: 5432\n',
    'token_ttl: one hour\nport: 5432\n',
    'secrets.yaml:3:10: mapping values are not allowed here\nnext line\n',
    'Error: validating provider credentials: retrieving caller identity\n  with provider\n',
    // Colon-separated text that is not a password file line: times, IPv6, MACs, ARNs, image refs.
    'at 10:30:45 the job ran',
    'fe80:1:2:3:4:5:6:7 and 2001:db8::8a2e:370:7334',
    'mac 00:1a:2b:3c:4d:5e',
    'arn:aws:iam::123456789012:role/app',
    'registry.example.com:5000/team/app:1.2',
    // `net user` that sets no password: a prompt (`*`), an option, a listing.
    'net user svc_backup * /add',
    'net user svc_backup /delete',
    'net user /domain',
    'net user',
  ])('leaves ports, parents and other tools alone: %s', (text) => {
    expect(redactText(text)).toBe(text);
    expect(containsCredential(text)).toBe(false);
  });

  it('judges a list of arguments as one command line, keeping what is not the password', () => {
    expect(argumentsHoldCredential(['mysql', '-uroot', '-pCNRYCMD2x', 'app'])).toBe(true);
    expect(argumentsHoldCredential(['sshpass', '-p', 'CNRYCMD2x', 'ssh', 'host'])).toBe(true);
    expect(argumentsHoldCredential(['mysql', '-h', 'db', '-p', 'app'])).toBe(false);
    expect(argumentsHoldCredential(['docker', 'run', '-p', '80:80', 'nginx'])).toBe(false);
    expect(redactArguments(['mysql', '-uroot', '-pCNRYCMD2x', 'app'])).toEqual([
      'mysql',
      '-uroot',
      `-p${REDACTED}`,
      'app',
    ]);
    expect(redactArguments(['sshpass', '-p', 'CNRY CMD2x', 'ssh', 'host'])).toEqual([
      'sshpass',
      '-p',
      REDACTED,
      'ssh',
      'host',
    ]);
    expect(redactArguments(['curl', '-u', 'ci:CNRY"CMD2x', 'https://x'])).toEqual([
      'curl',
      '-u',
      REDACTED,
      'https://x',
    ]);
  });
});

describe('{name, value} pairs written as text', () => {
  it.each([
    ['[{"name":"DB_PASSWORD","value":"CNRYPAIR1x"}]', '"value":'],
    ['[{\\"name\\":\\"DB_PASSWORD\\",\\"value\\":\\"CNRYPAIR1x\\"}]', '\\"value\\":'],
    ['{"name":"API_TOKEN","type":"PLAINTEXT","value":"CNRYPAIR1x"}', '"value":'],
    ['[{"Key":"api-token","Value":"CNRYPAIR1x"}]', '"Value":'],
    ['{"value":"CNRYPAIR1x","name":"API_TOKEN"}', '{"value":'],
    ['{\\"value\\":\\"CNRYPAIR1x\\",\\"name\\":\\"DB_PASSWORD\\"}', '{\\"value\\":'],
    ['ParameterKey=DbPassword,ParameterValue=CNRYPAIR1x', 'ParameterValue='],
    ['env:\n  - name: API_TOKEN\n    value: "CNRYPAIR1x"\n', 'value: '],
    ['aws ssm put-parameter --name /app/db --type SecureString --value CNRYPAIR1x', '--value '],
  ])('%s', (text, kept) => {
    const redacted = redactText(text);
    expect(redacted).not.toContain('CNRYPAIR1x');
    expect(redacted).toContain(`${kept}${REDACTED}`);
  });

  it.each([
    '[{"name":"DB_HOST","value":"db.internal"}]',
    '[{"value":"db.internal","name":"DB_HOST"}]',
    'env:\n  - name: LOG_LEVEL\n    value: debug\n',
    'aws ssm put-parameter --name /app/region --type String --value eu-west-1',
  ])('leaves pairs that name no secret alone: %s', (text) => {
    expect(redactText(text)).toBe(text);
  });
});

describe('URL passwords written raw', () => {
  it.each([
    'postgres://app:p%40ss w"CNRYURL1x@db.internal/orders',
    'postgres://app:p ss CNRYURL1x@db.internal:5432/orders',
    "mysql://app:it's-CNRYURL1x@db/app",
    'DATABASE_URL="postgres://app:p ss w\'CNRYURL1x@db/orders"',
    'mongodb://admin:"CNRYURL1x"@h/db',
  ])('redacts the whole password up to the host: %s', (text) => {
    const redacted = redactText(text);
    expect(redacted).not.toContain('CNRYURL1x');
    expect(redacted).toMatch(/:\/\/[a-z]+:\(redacted\)@/);
  });

  it.each([
    'see http://host:8080 by admin@example.com',
    '{"url":"http://h:abc","mail":"a@b.example"}',
    'https://example.com/a b@c',
  ])('leaves a port, the end of a quoted value and a path alone: %s', (text) => {
    expect(redactText(text)).toBe(text);
  });
});

describe('our markers in input are not trusted', () => {
  it.each([
    ['password="(redacted) CNRYMRK1x"', 'password='],
    ['password=(redacted)CNRYMRK1x', 'password='],
    ["token: '(sensitive:0a1b2c3d) CNRYMRK1x'", 'token: '],
    ['--api-token (redacted)CNRYMRK1x --port 80', '--api-token '],
    ['<password>(redacted) CNRYMRK1x</password>', '<password>'],
    ['Authorization: (redacted) CNRYMRK1x', 'Authorization: '],
    ['redis-cli -a (redacted)CNRYMRK1x ping', 'redis-cli -a '],
    ['postgres://u:(redacted)CNRYMRK1x@db/app', 'postgres://u:'],
  ])('%s', (text, kept) => {
    const redacted = redactText(text);
    expect(redacted).not.toContain('CNRYMRK1x');
    expect(redacted).toContain(`${kept}${REDACTED}`);
    expect(redactText(redacted)).toBe(redacted);
  });

  it('still leaves a marker alone, attached to nothing', () => {
    for (const text of ['password=(redacted)', 'password="(redacted)"', 'token: (sensitive:0a1b2c3d)'])
      expect(redactText(text)).toBe(text);
  });
});

describe('secret names, whatever the separators and case', () => {
  it('splits names into words', () => {
    expect(nameWords('dbPassword')).toEqual(['db', 'password']);
    expect(nameWords('X-API-Key')).toEqual(['x', 'api', 'key']);
    expect(nameWords('HTTPHeaderToken')).toEqual(['http', 'header', 'token']);
    expect(nameWords('private.key')).toEqual(['private', 'key']);
  });

  it.each([
    ...NORMALISED_NAMES,
    'password',
    'DB_PASSWORD',
    'masterPassword',
    'masterpassword',
    'x_api_key',
    'X-Api-Key',
    'apiKey',
    'PRIVATE_KEY',
    'ssh-key',
    'client_secret',
    'Authorization',
    'DATABASE_DSN',
    'oauth_token',
    'secure_string',
    'user_data',
    'SLACK_WEBHOOK_URL',
    'SSHPASS',
    'srcstorepass',
    'requirepass',
    // Files that hold nothing but credentials, as keys of a ConfigMap or of a map of files.
    '.pgpass',
    '.netrc',
    '.npmrc',
    '.pypirc',
    '.s3cfg',
    '.dockerconfigjson',
    'NETRC',
  ])('%s is secret', (name) => expect(isSensitiveName(name)).toBe(true));

  it.each([
    'name',
    'arn',
    'key',
    'Key',
    'kms_key_id',
    'secret_arn',
    'secretName',
    'token_count',
    'password_length',
    'auth_type',
    'rotation_lambda_arn',
    'password_reset_required',
    'tags',
    'description',
    'author',
    'passenger_count',
    'key_name',
    'password-stdin',
    'PasswordAuthentication',
    // Settings: IMDS tokens required or optional (metadata_options), how many old passwords IAM refuses.
    'http_tokens',
    'HttpTokens',
    'password_reuse_prevention',
    // The OAuth scopes an API route or method asks of its callers.
    'authorization_scopes',
  ])('%s is not', (name) => expect(isSensitiveName(name)).toBe(false));

  it('an environment variable named like the IMDS setting still holds tokens', () => {
    expect(isSensitiveName('HTTP_TOKENS')).toBe(true);
    expect(isSensitiveName('http_tokens_value')).toBe(true);
  });
});
