# Common AWS resource types for test/integration/aws-common-drift.test.ts: applied once, scanned right
# after the apply (no findings), then changed out of band through the AWS APIs and scanned again.
# SQS queues, Route 53 and S3 lifecycle configurations are left out: the provider waits 25-55 s for
# each against moto (unit tests hold their plan shapes).
terraform {
  required_providers {
    aws = { source = "hashicorp/aws", version = "~> 5.100" }
  }
  backend "s3" {
    use_lockfile = true
  }
}

provider "aws" {
  region = "eu-west-1"
}

variable "lambda_zip" {
  type = string
}

variable "api_key" {
  type      = string
  sensitive = true
}

data "aws_caller_identity" "current" {}

# --- KMS ---------------------------------------------------------------------------------
resource "aws_kms_key" "app" {
  description             = "sweep app key"
  deletion_window_in_days = 7
  enable_key_rotation     = true
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid       = "Root"
      Effect    = "Allow"
      Principal = { AWS = ["arn:aws:iam::${data.aws_caller_identity.current.account_id}:root"] }
      Action    = ["kms:*"]
      Resource  = ["*"]
    }]
  })
  tags = { Team = "platform" }
}

resource "aws_kms_alias" "app" {
  name          = "alias/sweep-app"
  target_key_id = aws_kms_key.app.key_id
}

resource "aws_ssm_parameter" "api_key" {
  name   = "/sweep/api-key"
  type   = "SecureString"
  key_id = aws_kms_key.app.arn
  value  = var.api_key
}

# A key whose policy is its own resource: the key reads it into its own policy (companion).
resource "aws_kms_key" "shared" {
  description             = "sweep shared key"
  deletion_window_in_days = 7
}

resource "aws_kms_key_policy" "shared" {
  key_id = aws_kms_key.shared.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid       = "Root"
      Effect    = "Allow"
      Principal = { AWS = "arn:aws:iam::${data.aws_caller_identity.current.account_id}:root" }
      Action    = "kms:*"
      Resource  = "*"
    }]
  })
}

# --- Logs and alarms ---------------------------------------------------------------------
resource "aws_cloudwatch_log_group" "app" {
  name              = "/sweep/app"
  retention_in_days = 30
  tags              = { Team = "platform" }
}

resource "aws_cloudwatch_metric_alarm" "errors" {
  alarm_name          = "sweep-errors"
  comparison_operator = "GreaterThanThreshold"
  evaluation_periods  = 1
  metric_name         = "Errors"
  namespace           = "AWS/Lambda"
  period              = 300
  statistic           = "Sum"
  threshold           = 5
  alarm_description   = "errors"
  dimensions          = { FunctionName = "sweep-fn" }
}

# --- IAM ---------------------------------------------------------------------------------
resource "aws_iam_policy" "read" {
  name = "sweep-read"
  policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Action = ["s3:GetObject"], Resource = ["arn:aws:s3:::sweep-data/*"] }]
  })
}

resource "aws_iam_role" "fn" {
  name = "sweep-fn"
  assume_role_policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Principal = { Service = "lambda.amazonaws.com" }, Action = "sts:AssumeRole" }]
  })
}

resource "aws_iam_role_policy_attachment" "fn_read" {
  role       = aws_iam_role.fn.name
  policy_arn = aws_iam_policy.read.arn
}

resource "aws_iam_user" "ci" {
  name = "sweep-ci"
  tags = { Team = "platform" }
}

resource "aws_iam_group" "deployers" {
  name = "sweep-deployers"
}

resource "aws_iam_group_membership" "deployers" {
  name  = "sweep-deployers"
  group = aws_iam_group.deployers.name
  users = [aws_iam_user.ci.name]
}

resource "aws_iam_user_policy_attachment" "ci_read" {
  user       = aws_iam_user.ci.name
  policy_arn = aws_iam_policy.read.arn
}

resource "aws_iam_group_policy_attachment" "deployers_read" {
  group      = aws_iam_group.deployers.name
  policy_arn = aws_iam_policy.read.arn
}

# --- Network -----------------------------------------------------------------------------
resource "aws_vpc" "main" {
  cidr_block           = "10.20.0.0/16"
  enable_dns_hostnames = true
  tags                 = { Name = "sweep" }
}

resource "aws_subnet" "a" {
  vpc_id            = aws_vpc.main.id
  cidr_block        = "10.20.1.0/24"
  availability_zone = "eu-west-1a"
  tags              = { Name = "sweep-a" }
}

resource "aws_internet_gateway" "main" {
  vpc_id = aws_vpc.main.id
}

resource "aws_route_table" "private" {
  vpc_id = aws_vpc.main.id
  tags   = { Name = "sweep-private" }
}

resource "aws_route" "peer" {
  route_table_id         = aws_route_table.private.id
  destination_cidr_block = "10.99.0.0/16"
  gateway_id             = aws_internet_gateway.main.id
}

resource "aws_route_table_association" "a" {
  subnet_id      = aws_subnet.a.id
  route_table_id = aws_route_table.private.id
}

# IMDSv2 required: the test turns it off by hand (ModifyInstanceMetadataOptions).
resource "aws_instance" "web" {
  ami           = "ami-12c6146b"
  instance_type = "t3.micro"
  subnet_id     = aws_subnet.a.id
  metadata_options {
    http_endpoint = "enabled"
    http_tokens   = "required"
  }
}

resource "aws_security_group" "app" {
  name        = "sweep-app"
  description = "app"
  vpc_id      = aws_vpc.main.id
}

resource "aws_security_group_rule" "app_https" {
  type              = "ingress"
  security_group_id = aws_security_group.app.id
  protocol          = "tcp"
  from_port         = 443
  to_port           = 443
  cidr_blocks       = ["10.20.0.0/16"]
}

resource "aws_security_group_rule" "app_egress" {
  type              = "egress"
  security_group_id = aws_security_group.app.id
  protocol          = "-1"
  from_port         = 0
  to_port           = 0
  cidr_blocks       = ["10.0.0.0/8"]
}

resource "aws_network_acl" "a" {
  vpc_id     = aws_vpc.main.id
  subnet_ids = [aws_subnet.a.id]
  ingress {
    protocol   = "tcp"
    rule_no    = 100
    action     = "allow"
    cidr_block = "10.0.0.0/8"
    from_port  = 443
    to_port    = 443
  }
  egress {
    protocol   = "-1"
    rule_no    = 100
    action     = "allow"
    cidr_block = "10.0.0.0/8"
    from_port  = 0
    to_port    = 0
  }
}

# HTTPS from anywhere, inline: the test edits the rule in place to SSH (ModifySecurityGroupRules),
# so the refresh shows only its ports.
resource "aws_security_group" "edge" {
  name        = "sweep-edge"
  description = "edge"
  vpc_id      = aws_vpc.main.id
  ingress {
    protocol    = "tcp"
    from_port   = 443
    to_port     = 443
    cidr_blocks = ["0.0.0.0/0"]
  }
}

# An allow from a private range: the test widens it in place to 0.0.0.0/0 (ReplaceNetworkAclEntry).
resource "aws_network_acl" "b" {
  vpc_id = aws_vpc.main.id
  ingress {
    protocol   = "6"
    rule_no    = 100
    action     = "allow"
    cidr_block = "10.0.0.0/8"
    from_port  = 443
    to_port    = 443
  }
}

# --- API Gateway -------------------------------------------------------------------------
# A route that requires IAM: the test leaves it open to anyone by hand (UpdateRoute NONE).
resource "aws_apigatewayv2_api" "orders" {
  name          = "sweep-orders"
  protocol_type = "HTTP"
}

resource "aws_apigatewayv2_route" "orders" {
  api_id             = aws_apigatewayv2_api.orders.id
  route_key          = "GET /orders"
  authorization_type = "AWS_IAM"
}

# --- IAM account password policy -----------------------------------------------------------
resource "aws_iam_account_password_policy" "strict" {
  minimum_password_length        = 14
  require_lowercase_characters   = true
  require_numbers                = true
  require_uppercase_characters   = true
  require_symbols                = true
  allow_users_to_change_password = true
  password_reuse_prevention      = 24
}

# --- SNS ---------------------------------------------------------------------------------
# The topic reads its policy from aws_sns_topic_policy (companion); the test opens the statement to
# everyone in place (Principal "*", Condition removed).
resource "aws_sns_topic" "events" {
  name = "sweep-events"
}

resource "aws_sns_topic_policy" "events" {
  arn = aws_sns_topic.events.arn
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid       = "PublishFromAccount"
      Effect    = "Allow"
      Principal = { AWS = "*" }
      Action    = "sns:Publish"
      Resource  = aws_sns_topic.events.arn
      Condition = { StringEquals = { "AWS:SourceOwner" = data.aws_caller_identity.current.account_id } }
    }]
  })
}

# --- DynamoDB ----------------------------------------------------------------------------
resource "aws_dynamodb_table" "orders" {
  name         = "sweep-orders"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "pk"
  range_key    = "sk"
  attribute {
    name = "pk"
    type = "S"
  }
  attribute {
    name = "sk"
    type = "S"
  }
  point_in_time_recovery {
    enabled = true
  }
  deletion_protection_enabled = true
  tags                        = { Team = "orders" }
}

# Point-in-time recovery alone: the test turns it off by hand.
resource "aws_dynamodb_table" "events" {
  name         = "sweep-events"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "pk"
  attribute {
    name = "pk"
    type = "S"
  }
  point_in_time_recovery {
    enabled = true
  }
}

# --- ECR ---------------------------------------------------------------------------------
resource "aws_ecr_repository" "app" {
  name                 = "sweep-app"
  image_tag_mutability = "IMMUTABLE"
  image_scanning_configuration {
    scan_on_push = true
  }
}

resource "aws_ecr_lifecycle_policy" "app" {
  repository = aws_ecr_repository.app.name
  policy = jsonencode({
    rules = [{
      rulePriority = 1
      description  = "keep 10"
      selection    = { tagStatus = "any", countType = "imageCountMoreThan", countNumber = 10 }
      action       = { type = "expire" }
    }]
  })
}

# --- S3 companions -----------------------------------------------------------------------
resource "aws_s3_bucket" "assets" {
  bucket = "sweep-assets"
}

resource "aws_s3_bucket_public_access_block" "assets" {
  bucket                  = aws_s3_bucket.assets.id
  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

resource "aws_s3_bucket_ownership_controls" "assets" {
  bucket = aws_s3_bucket.assets.id
  rule {
    object_ownership = "BucketOwnerEnforced"
  }
}

# --- Lambda ------------------------------------------------------------------------------
resource "aws_lambda_function" "fn" {
  function_name    = "sweep-fn"
  role             = aws_iam_role.fn.arn
  runtime          = "nodejs20.x"
  handler          = "index.handler"
  filename         = var.lambda_zip
  source_code_hash = filebase64sha256(var.lambda_zip)
  timeout          = 10
  memory_size      = 128
  environment {
    variables = { LOG_LEVEL = "info" }
  }
}
