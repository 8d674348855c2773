# Platform: the event queue every team publishes to, the topic deploys are announced on, and the
# deploy role with an inline policy managed by a companion aws_iam_role_policy.
terraform {
  required_version = ">= 1.5"
  required_providers {
    aws = { source = "hashicorp/aws", version = "~> 5.100" }
  }
  backend "s3" {
    use_lockfile = true
  }
}

provider "aws" {
  region = var.region
}

variable "region" {
  type    = string
  default = "eu-west-1"
}

resource "aws_sqs_queue" "events" {
  name                       = "platform-events"
  visibility_timeout_seconds = 60
  tags = {
    Owner = "platform"
  }
}

resource "aws_sns_topic" "deploys" {
  name = "platform-deploys"
  tags = {
    Owner = "platform"
  }
}

resource "aws_iam_role" "deployer" {
  name = "platform-deployer"
  assume_role_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Principal = { Service = "codebuild.amazonaws.com" }
      Action    = "sts:AssumeRole"
    }]
  })
}

resource "aws_iam_role_policy" "deployer" {
  name = "read-events"
  role = aws_iam_role.deployer.name
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect   = "Allow"
      Action   = ["sqs:ReceiveMessage", "sqs:GetQueueAttributes"]
      Resource = aws_sqs_queue.events.arn
    }]
  })
}
